// Following a prediction (`run`, `predictions wait`, the MCP server's waits) against a gateway that
// misbehaves: streams that end at once, a 429 with Retry-After, a 5xx, a 4xx. A local HTTP server
// stands in for the gateway's two routes, counting the requests the CLI makes.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '../../cli/client.ts';
import { waitFor } from '../../cli/commands.ts';
import type { Context } from '../../cli/commands.ts';

type Handler = (kind: 'stream' | 'result', n: number, res: http.ServerResponse) => void;

async function fakeGateway(t: import('ava').ExecutionContext, handler: Handler): Promise<{ ctx: Context; count: () => number }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    n += 1;
    handler(req.url!.includes('/stream') ? 'stream' : 'result', n, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  const client = new Client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' });
  const ctx: Context = { client, json: true, config: {}, readLine: async () => '', readSecret: async () => '', saveConfig() {}, forgetConfig() {} };
  return { ctx, count: () => n };
}

const running = JSON.stringify({ id: 'p', model: 'm', status: 'running', outputs: [], error: null });
const done = JSON.stringify({ id: 'p', model: 'm', status: 'completed', outputs: ['u'], error: null });

test('a stream that ends at once without the end is followed again with a growing pause, not in a tight loop', async (t) => {
  const { ctx, count } = await fakeGateway(t, (kind, _n, res) => {
    if (kind === 'stream') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end(); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(running);
  });
  const err = await t.throwsAsync(waitFor(ctx, 'p', 3));
  t.is((err as { exitCode?: number }).exitCode, 7);
  t.true(count() <= 12, `${count()} requests in 3 s`);
});

test('a 429 on the stream waits its Retry-After and follows again; a 5xx is retried; a 4xx ends the wait with its exit code', async (t) => {
  const limited = await fakeGateway(t, (kind, n, res) => {
    if (kind === 'stream' && n === 1) { res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ detail: 'slow down', code: 'rate_limited' })); return; }
    if (kind === 'stream') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end(`data: ${done}\n\n`); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(running);
  });
  const started = Date.now();
  t.is((await waitFor(limited.ctx, 'p', 10)).status, 'completed');
  t.true(Date.now() - started >= 900, 'waited the Retry-After');

  const flaky = await fakeGateway(t, (kind, n, res) => {
    if (kind === 'stream' && n === 1) { res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'busy' })); return; }
    if (kind === 'stream') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end(`data: ${done}\n\n`); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(running);
  });
  t.is((await waitFor(flaky.ctx, 'p', 10)).status, 'completed');

  const gone = await fakeGateway(t, (kind, _n, res) => {
    if (kind === 'stream') { res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'restricted key', code: 'forbidden' })); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(running);
  });
  const err = await t.throwsAsync(waitFor(gone.ctx, 'p', 10));
  t.is((err as { exitCode?: number }).exitCode, 3);
  t.regex(err!.message, /restricted key/);
  t.is(gone.count(), 1, 'no retry after a 4xx');
});

test('a request the gateway never answers, or answers halfway, ends at the request time limit with the timeout exit code', async (t) => {
  const server = http.createServer((req, res) => {
    // the result route sends its headers and half a body, then nothing; every other route nothing at all
    if (req.url!.includes('/result')) { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"id":'); }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  const client = new Client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', requestTimeoutMs: 300 });
  for (const path of ['/account/balance', '/api/v1/predictions/p/result']) {
    const err = await t.throwsAsync(client.request('GET', path));
    t.is((err as { exitCode?: number }).exitCode, 7, path);
    t.regex(err!.message, /did not answer within 0.3 s/);
  }
});
