// HSTS: with an https PUBLIC_URL every answer carries `Strict-Transport-Security: max-age=31536000`
// (no includeSubDomains, no preload), whatever route it took: a handler's, a refusal, an unknown
// path, a malformed body, a preflight, a static file, the OAuth token endpoint (written by
// oidc-provider), and the answers written on the socket before hapi has a request (a malformed
// request line, oversized headers, an unknown Expect); with an http one (the embedded default) none does.
import test from 'ava';
import net from 'node:net';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { basic, createClient, tokenRequest } from '../helpers/oauth.ts';

let secure: TestGateway;
let plain: TestGateway;

test.before(async () => {
  const env = { CORS_ORIGINS: 'https://app.test', PORT: '0', HOST: '127.0.0.1', MAX_BODY_BYTES: '4096' };
  [secure, plain] = await Promise.all([
    startGateway({ db: 'sqlite', queue: 'memory', env: { ...env, PUBLIC_URL: 'https://gateway.test' } }),
    startGateway({ db: 'sqlite', queue: 'memory', env: { ...env, PUBLIC_URL: 'http://gateway.test' } }),
  ]);
  await Promise.all([secure.server.start(), plain.server.start()]);
});
test.after.always(async () => {
  await Promise.all([secure?.stop(), plain?.stop()]);
});

/** Writes `head` on a new socket and reads the answer's status and headers until the server closes. */
function rawAnswer(port: number, head: string): Promise<{ status: number; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err); });
    socket.on('close', () => {
      const [statusLine = '', ...lines] = (Buffer.concat(chunks).toString('utf8').split('\r\n\r\n', 1)[0] ?? '').split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.write(head);
  });
}

/** The status each answer below is expected to have (so each takes the path it names). */
const STATUSES: Record<string, number> = {
  'a handler': 200,
  'a refusal': 401,
  'an unknown path': 404,
  'an unknown path with a body': 404,
  'a public route': 200,
  'a preflight': 200,
  'the dashboard': 200,
  'a dashboard file': 200,
  'a missing dashboard file': 404,
  'a missing output file': 404,
  'a sample file': 404,
  'the spec': 200,
  'a malformed JSON body': 422,
  'a body the spec refuses': 422,
  'a body of the wrong type': 415,
  'an oversized body': 413,
  'a bad %-escape': 400,
  'the OAuth token endpoint': 200,
  'a malformed request line': 400,
  'oversized headers': 431,
  'an unknown Expect': 417,
  'no Host': 400,
};

/** One answer of each kind, with its status and Strict-Transport-Security header. */
async function answers(gw: TestGateway) {
  const acct = await newAccount(gw);
  const inject = async (what: string, opts: Parameters<TestGateway['server']['inject']>[0]) => {
    const res = await gw.server.inject(opts);
    return { what, status: res.statusCode, hsts: res.headers['strict-transport-security'] };
  };
  const socket = async (what: string, head: string) => {
    const res = await rawAnswer(gw.server.info.port as number, head);
    return { what, status: res.status, hsts: res.headers['strict-transport-security'] };
  };
  const client = await createClient(gw, acct.session, ['account:read']);
  const token = await tokenRequest(gw, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
  const json = { 'content-type': 'application/json' };
  return [
    await inject('a handler', { method: 'GET', url: '/account/balance', headers: { 'x-api-key': acct.liveKey } }),
    await inject('a refusal', { method: 'GET', url: '/account/balance' }),
    await inject('an unknown path', { method: 'GET', url: '/no/such/path' }),
    await inject('an unknown path with a body', { method: 'POST', url: '/no/such/path', headers: json, payload: '{}' }),
    await inject('a public route', { method: 'GET', url: '/livez' }),
    await inject('a preflight', { method: 'OPTIONS', url: '/account/balance', headers: { origin: 'https://app.test', 'access-control-request-method': 'GET' } }),
    await inject('the dashboard', { method: 'GET', url: '/dashboard' }),
    await inject('a dashboard file', { method: 'GET', url: '/dashboard/app.js' }),
    await inject('a missing dashboard file', { method: 'GET', url: '/dashboard/no-such-file.js' }),
    await inject('a missing output file', { method: 'GET', url: '/files/outputs/no/such.png' }),
    await inject('a sample file', { method: 'GET', url: '/files/sandbox/no-such.png' }),
    await inject('the spec', { method: 'GET', url: '/openapi.json' }),
    await inject('a malformed JSON body', { method: 'POST', url: '/auth/login', headers: json, payload: '{"email": ' }),
    await inject('a body the spec refuses', { method: 'POST', url: '/auth/login', headers: json, payload: '{}' }),
    await inject('a body of the wrong type', { method: 'POST', url: '/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'x' }),
    await inject('an oversized body', { method: 'POST', url: '/auth/login', headers: json, payload: JSON.stringify({ email: 'x'.repeat(5000) }) }),
    await inject('a bad %-escape', { method: 'GET', url: '/api/v1/predictions/%E0%A4%A/result', headers: { 'x-api-key': acct.liveKey } }),
    { what: 'the OAuth token endpoint', status: token.status, hsts: token.headers['strict-transport-security'] },
    await socket('a malformed request line', 'THIS IS NOT HTTP\r\n\r\n'),
    await socket('oversized headers', `GET /livez HTTP/1.1\r\nHost: gw\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`),
    await socket('an unknown Expect', 'POST /auth/login HTTP/1.1\r\nHost: gw\r\nExpect: 999-xyz\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'),
    await socket('no Host', 'GET /livez HTTP/1.1\r\n\r\n'),
  ];
}

test('with an https PUBLIC_URL every answer carries Strict-Transport-Security for a year, without includeSubDomains or preload', async (t) => {
  const all = await answers(secure);
  t.deepEqual(Object.fromEntries(all.map((a) => [a.what, a.status])), STATUSES);
  t.deepEqual(all.filter((a) => a.hsts !== 'max-age=31536000').map((a) => `${a.what} (${a.status}): ${a.hsts}`), []);
});

test('with an http PUBLIC_URL (the embedded default) no answer carries it', async (t) => {
  const all = await answers(plain);
  t.deepEqual(Object.fromEntries(all.map((a) => [a.what, a.status])), STATUSES);
  t.deepEqual(all.filter((a) => a.hsts !== undefined).map((a) => `${a.what} (${a.status}): ${a.hsts}`), []);
});
