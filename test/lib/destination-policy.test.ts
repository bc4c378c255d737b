// The SSRF policy: which webhook URLs are refused at submit time, and send-time re-resolution.
import test from 'ava';
import { urlProblem, addressPermitted } from '../../lib/destination-policy.ts';
import { sendWebhook } from '../../workers/deliver-webhook.ts';
import { startReceiver } from '../helpers/receiver.ts';

const strict = { allowInsecure: false };

test('only https URLs with a public destination pass by default', (t) => {
  t.is(urlProblem('https://hooks.example.com/x?y=1', strict), null);
  t.is(urlProblem('https://93.184.215.14/hook', strict), null);
  t.is(urlProblem('https://[2606:4700:4700::1111]/hook', strict), null);
});

test('insecure, credentialed, loopback, private, link-local, unique-local, multicast and metadata targets are refused in every notation', (t) => {
  const refused = [
    'http://hooks.example.com/x',
    'ftp://hooks.example.com/x',
    'https://user:pass@hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://127.1.2.3/x',
    'https://2130706433/x', // decimal 127.0.0.1
    'https://0177.0.0.1/x', // octal
    'https://0x7f.0.0.1/x', // hex
    'https://017700000001/x', // octal as one number
    'https://0/x',
    'https://10.0.0.8/x',
    'https://172.16.5.4/x',
    'https://192.168.1.1/x',
    'https://100.64.0.1/x', // carrier-grade NAT
    'https://169.254.169.254/latest/meta-data/', // cloud metadata
    'https://[::1]/x',
    'https://[::]/x',
    'https://[fe80::1]/x',
    'https://[fd00:ec2::254]/x', // metadata, unique-local
    'https://[fc00::1]/x',
    'https://[ff02::1]/x',
    'https://[::ffff:127.0.0.1]/x', // IPv4-mapped
    'https://[::ffff:169.254.169.254]/x',
    'https://[::ffff:a9fe:a9fe]/x',
    'https://224.0.0.1/x',
    'https://255.255.255.255/x',
    'https://localhost/x',
    'https://api.localhost/x',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://[::127.0.0.1]/x', // IPv4-compatible IPv6 (::/96)
    'https://[::7f00:1]/x',
    'https://[::a9fe:a9fe]/x',
    'https://[::8.8.8.8]/x', // ::/96 is refused whole, not only its private part
    'https://[64:ff9b::7f00:1]/x', // NAT64 to 127.0.0.1
    'https://[2002:7f00:1::]/x', // 6to4 of 127.0.0.1
    'https://[::ffff:0:7f00:1]/x', // IPv4-translated
    'https://localhost./x', // trailing dot: the same name
    'https://localhost../x',
    'https://api.localhost./x',
    'https://metadata.google.internal./computeMetadata/v1/',
    'https://printer.local./x',
    'not a url',
  ];
  for (const url of refused) t.not(urlProblem(url, strict), null, url);
});

test('WEBHOOK_ALLOW_INSECURE permits http and loopback for development', (t) => {
  t.is(urlProblem('http://127.0.0.1:9999/hook', { allowInsecure: true }), null);
  t.true(addressPermitted('10.1.2.3', { allowInsecure: true }));
});

test('at send time a host that resolves to a forbidden address is not connected to', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const port = new URL(receiver.url).port;
  // "localhost" resolves to loopback: the pinned lookup refuses it before any connection.
  const r = await sendWebhook(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 2000, policy: { allowInsecure: false } });
  t.is(r.error, 'destination not permitted');
  const literal = await sendWebhook(`https://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 2000, policy: strict });
  t.is(literal.error, 'destination not permitted');
  t.is(receiver.received.length, 0);
});

test('send-time address checks refuse IPv4-compatible and IPv4-mapped forms of internal addresses', (t) => {
  for (const address of ['::127.0.0.1', '::7f00:1', '::', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1']) {
    t.false(addressPermitted(address, strict), address);
  }
  t.true(addressPermitted('::ffff:93.184.215.14', strict));
  t.true(addressPermitted('2606:4700:4700::1111', strict));
});

test('a send to an IPv4-compatible IPv6 literal is refused without connecting', async (t) => {
  const r = await sendWebhook('https://[::127.0.0.1]:9/hook', '{}', {}, { timeoutMs: 2000, policy: strict });
  t.is(r.error, 'destination not permitted');
});
