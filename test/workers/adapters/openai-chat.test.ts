// The chat adapter's failures are shown to the caller: they never carry the provider's key or
// address, whatever the transport's own error says.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { completeChat, streamChat } from '../../../workers/adapters/openai-chat.ts';
import type { ChatProvider } from '../../../workers/adapters/openai-chat.ts';
import { freePort } from '../../helpers/processes.ts';

const opts = () => ({ signal: new AbortController().signal, timeoutMs: 2000 });
const body = { messages: [{ role: 'user', content: 'hi' }] };

test('a provider that cannot be reached is named without its address or the credentials in it', async (t) => {
  const port = await freePort();
  const provider: ChatProvider = { name: 'self-hosted', url: `http://gw:pa55word@127.0.0.1:${port}/v1`, key: 'sk-chat-key', upstreamModel: 'm' };
  for (const call of [() => completeChat([provider], body, opts()), () => streamChat([provider], body, opts())]) {
    const err = await t.throwsAsync(call);
    t.regex(err!.message, /^the provider "self-hosted" could not be reached/);
    t.false(err!.message.includes('pa55word'));
    t.false(err!.message.includes(String(port)));
  }
});

test('failover stops at the call\'s total wait: the provider being tried gets what is left of it, and later ones are not tried', async (t) => {
  const seen: string[] = [];
  const server = http.createServer((req) => {
    seen.push(req.url ?? '');
    // never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = (name: string): ChatProvider => ({ name, url: `${base}/${name}`, key: undefined, upstreamModel: 'm' });
  const providers = [provider('first'), provider('second'), provider('third')];
  for (const call of [completeChat, streamChat]) {
    seen.length = 0;
    const started = performance.now();
    const err = await t.throwsAsync(call(providers, body, { ...opts(), timeoutMs: 600, totalMs: 900 }));
    const took = performance.now() - started;
    t.like(err, { code: 'upstream_timeout' });
    t.deepEqual(seen, ['/first/chat/completions', '/second/chat/completions'], 'the third provider is not tried');
    t.true(took >= 880 && took < 1_500, `gave up after ${Math.round(took)} ms, at the total, not two whole timeouts`);
  }
});

/** A provider that streams `before` and then only keep-alive comments, every 50 ms, until the call goes away. */
const pinging = async (t: { teardown(fn: () => void): void }, before: string) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(before);
    const timer = setInterval(() => res.write(': keep-alive\n\n'), 50);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { name: 'pinging', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, key: undefined, upstreamModel: 'm' } satisfies ChatProvider;
};

/** The call's outcome, or 'still waiting' after `ms`. */
const within = <T>(ms: number, p: Promise<T>) => Promise.race([p, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

test('a stream of keep-alive comments is no answer: the wait for the first chunk times out however often they come', async (t) => {
  const provider = await pinging(t, '');
  const outcome = await within(3000, streamChat([provider], body, { ...opts(), timeoutMs: 600 }).then(() => 'opened', (err: unknown) => err));
  t.like(outcome, { code: 'upstream_timeout' });
});

test('a stream that only sends keep-alive comments after a chunk times out waiting for the next one', async (t) => {
  const first = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] })}\n\n`;
  const provider = await pinging(t, first);
  const { chunks } = await streamChat([provider], body, { ...opts(), timeoutMs: 600 });
  const read = async () => {
    let n = 0;
    for await (const chunk of chunks) if (chunk) n++;
    return n;
  };
  const outcome = await within(3000, read().then(() => 'ended', (err: unknown) => err));
  t.like(outcome, { code: 'upstream_timeout' });
});
