// Where a streamed chat call's first token spends its time in the gateway, stage by stage:
// `node test/bench/stream-stages.ts [calls]` (DB=sqlite, the embedded default, or DB=mysql with
// TEST_MYSQL_URL and TEST_AMQP_URL). One process holds the client, the gateway and the provider fake
// (test/helpers/openai-upstream.ts, `bench` mode), as the streaming phase does; calls run one at a
// time, so every mark of a call is that call's. The marks come from outside the product code:
// hapi's lifecycle steps (extensions this script adds), the store's startInline and fetch
// (wrapped here), knex's query events, Node's and undici's diagnostics channels (the HTTP server's
// request start, a new upstream connection), and the response's first write to the socket. Prints
// the median ms of each stage after warm-up, and the same stages of a call to the fake alone.
// Measurement only: nothing here is timed by a test.
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { startFakeOpenAI } from '../helpers/openai-upstream.ts';
import { printSelfTime } from './lib.ts';

const CALLS = Number(process.argv[2] ?? 300);
const DB = process.env.DB === 'mysql' ? 'mysql' : 'sqlite';
const WARMUP = 20;
/** ACCEPT_ENCODING: the client's Accept-Encoding (default fetch's own, which asks for gzip) */
const ACCEPT_ENCODING = process.env.ACCEPT_ENCODING;
/** the pause after each call, so that what a call leaves running (its settle) is not the next call's */
const GAP_MS = Number(process.env.GAP_MS ?? 5);

/** The marks of the call in flight: name -> ms since the client began it. */
let marks: Map<string, number> = new Map();
let t0 = 0;
let newConnections = 0;
const mark = (name: string) => {
  let key = name;
  for (let n = 2; marks.has(key); n++) key = `${name} #${n}`;
  marks.set(key, performance.now() - t0);
};

const fake = await startFakeOpenAI();
fake.mode = 'bench';
fake.benchChunks = Number(process.env.STREAM_CHUNKS ?? 64);
const fakePort = Number(new URL(fake.url).port);
const port = await freePort();
// on MariaDB, RabbitMQ as in production: the API-key cache is served only under the broadcast's lease
const gw = await startGateway({ db: DB, queue: DB === 'mysql' ? 'amqp' : 'memory', worker: false, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, UPSTREAM_OPENAI_URL: fake.url } });

// the HTTP servers' request start (headers parsed) and each response's first write
diagnostics.subscribe('http.server.request.start', (msg) => {
  const { request, response } = msg as { request: IncomingMessage; response: ServerResponse };
  const side = request.socket.localPort === fakePort ? 'fake' : 'gw';
  mark(`${side}: request start`);
  const write = response.write.bind(response);
  let written = false;
  response.write = ((...args: Parameters<ServerResponse['write']>) => {
    if (!written) mark(`${side}: first body write`);
    written = true;
    return write(...args);
  }) as ServerResponse['write'];
  const writeHead = response.writeHead.bind(response);
  response.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
    mark(`${side}: writeHead`);
    return writeHead(...(args as [number]));
  }) as ServerResponse['writeHead'];
});
diagnostics.subscribe('undici:client:connected', () => {
  newConnections++;
  mark('upstream: new connection');
});
for (const step of ['onRequest', 'onPreAuth', 'onCredentials', 'onPostAuth', 'onPreHandler', 'onPostHandler', 'onPreResponse'] as const) {
  gw.server.ext(step, (_request, h) => {
    mark(`gw: ${step}`);
    return h.continue;
  });
}
// knex: each statement's start and answer, named by its first words
const uids = new Map<string, string>();
gw.app.db.on('query', (q: { sql: string; __knexQueryUid: string }) => {
  const name = q.sql.replace(/\s+/g, ' ').slice(0, 40);
  uids.set(q.__knexQueryUid, name);
  mark(`sql> ${name}`);
});
gw.app.db.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
  mark(`sql< ${uids.get(q.__knexQueryUid) ?? '?'}`);
});
const store = gw.app.store;
const startInline = store.startInline.bind(store);
store.startInline = async (req) => {
  mark('store.startInline begins');
  try {
    return await startInline(req);
  } finally {
    mark('store.startInline answers');
  }
};
const realFetch = globalThis.fetch;
globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const url = String(input instanceof Request ? input.url : input);
  const upstream = url.startsWith(fake.url);
  const viaGateway = marks.has('gw: request start') || url.includes(`:${port}/`);
  if (upstream && viaGateway) mark('upstream: fetch called');
  const res = await realFetch(input, init);
  if (upstream && viaGateway) mark('upstream: response headers');
  return res;
}) as typeof fetch;

await gw.server.start();
const account = await newAccount(gw, 1_000_000_000);

/** One streamed call: its marks, the client's first content chunk included. */
async function call(viaGateway: boolean): Promise<Map<string, number>> {
  marks = new Map();
  const url = viaGateway ? `http://127.0.0.1:${port}/v1/chat/completions` : `${fake.url}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(viaGateway ? { authorization: `Bearer ${account.liveKey}` } : {}), ...(ACCEPT_ENCODING ? { 'accept-encoding': ACCEPT_ENCODING } : {}) };
  t0 = performance.now();
  const res = await realFetch(url, { method: 'POST', headers, body: JSON.stringify({ model: viaGateway ? 'lexi-v1-balanced-chat' : 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count.' }], stream: true, max_tokens: 1000 }) });
  mark('client: response headers');
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  if (res.headers.get('content-encoding')) mark(`client: content-encoding ${res.headers.get('content-encoding')}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (!marks.has('client: first content chunk') && text.includes('"content":"word ')) mark('client: first content chunk');
  }
  mark('client: end');
  // what the call left running (the settle) is its own, not the next call's
  await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  return marks;
}

function medians(runs: Array<Map<string, number>>): Array<[string, number, number]> {
  const names = new Map<string, number[]>();
  for (const m of runs) for (const [k, v] of m) (names.get(k) ?? names.set(k, []).get(k)!).push(v);
  const rows: Array<[string, number, number]> = [];
  for (const [k, vs] of names) {
    vs.sort((a, b) => a - b);
    rows.push([k, vs[Math.floor(vs.length / 2)]!, vs.length]);
  }
  return rows.sort((a, b) => a[1] - b[1]);
}

try {
  for (let i = 0; i < WARMUP; i++) {
    await call(false);
    await call(true);
  }
  newConnections = 0;
  const direct: Array<Map<string, number>> = [];
  const gateway: Array<Map<string, number>> = [];
  // PROFILE=<file>: a CPU profile of the measured calls (its sampling slows them: read the stages without it)
  const session = new Session();
  if (process.env.PROFILE) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const cpu = { direct: 0, gateway: 0 };
  for (let i = 0; i < CALLS; i++) {
    let c = process.cpuUsage();
    direct.push(await call(false));
    c = process.cpuUsage(c);
    cpu.direct += c.user + c.system;
    c = process.cpuUsage();
    gateway.push(await call(true));
    c = process.cpuUsage(c);
    cpu.gateway += c.user + c.system;
  }
  if (process.env.PROFILE) {
    const { profile } = await session.post('Profiler.stop');
    await fs.writeFile(process.env.PROFILE, JSON.stringify(profile));
    printSelfTime(profile);
  }
  console.log(`\nCPU of this process per call (client, fake and gateway; each call's ${GAP_MS} ms pause included): fake alone ${(cpu.direct / CALLS / 1000).toFixed(3)} ms, through the gateway ${(cpu.gateway / CALLS / 1000).toFixed(3)} ms`);
  const print = (title: string, runs: Array<Map<string, number>>) => {
    console.log(`\n${title} (${runs.length} calls; median ms from the client's fetch; [calls with the mark])`);
    for (const [k, v, n] of medians(runs)) console.log(`  ${v.toFixed(3).padStart(8)}  ${k}${n === runs.length ? '' : `  [${n}]`}`);
  };
  print(`the provider fake alone`, direct);
  print(`through the gateway (${DB})`, gateway);
  console.log(`\nnew upstream connections during the measured calls: ${newConnections}`);
} finally {
  await gw.stop();
  await fake.close();
}
