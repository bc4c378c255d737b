// The streaming phase of the benchmark (`BENCH_PHASES=streaming npm run bench`, or on its own:
// `node test/bench/streaming.ts`): time to first token and tokens per second of a streamed chat
// completion through the gateway (POST /v1/chat/completions, a live key, the call held, relayed
// and settled by usage), against the same stream read from the provider alone, in the same run.
// The provider is the local server speaking OpenAI's API (test/helpers/openai-upstream.ts,
// `bench` mode: STREAM_CHUNKS one-word chunks, each its own write, as fast as it can). The gateway
// runs on the embedded default (SQLite) in this process, beside the provider and the client, so
// both sides share one event loop and one machine: the difference is what the gateway adds.
// Sides alternate, STREAM_ROUNDS rounds of STREAM_CALLS sequential calls each.
// Prints one JSON line: {"streamingResults": {...}}.
import { performance } from 'node:perf_hooks';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { startFakeOpenAI } from '../helpers/openai-upstream.ts';

const ROUNDS = Number(process.env.STREAM_ROUNDS ?? 4);
const CALLS = Number(process.env.STREAM_CALLS ?? 50);
const CHUNKS = Number(process.env.STREAM_CHUNKS ?? 64);

/** A call's times from its start: its first content chunk, its [DONE] event (the last token relayed), the response's end. */
interface Call { ttftMs: number; doneMs: number; totalMs: number; chunks: number }

/** One streamed call: the time to its first content chunk, to its [DONE], to its end, and the content chunks read. */
async function call(url: string, headers: Record<string, string>, model: string): Promise<Call> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Count.' }], stream: true, max_tokens: 1000 }) });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = 0;
  let doneAt = 0;
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (event.includes('"content":"word ')) {
        chunks++;
        if (first === 0) first = performance.now();
      }
      if (event === 'data: [DONE]') doneAt = performance.now();
    }
  }
  const ended = performance.now();
  return { ttftMs: first - t0, doneMs: (doneAt || ended) - t0, totalMs: ended - t0, chunks };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const r3 = (n: number) => Math.round(n * 1000) / 1000;

function summary(calls: Call[]) {
  const ttft = calls.map((c) => c.ttftMs);
  // relayed from the first content chunk to [DONE]: the gateway settles the call after [DONE], before the response ends
  const rates = calls.map((c) => (c.chunks / Math.max(0.001, c.doneMs - c.ttftMs)) * 1000);
  const tails = calls.map((c) => c.totalMs - c.doneMs);
  return { calls: calls.length, ttftP50Ms: r3(pct(ttft, 50)), ttftP90Ms: r3(pct(ttft, 90)), tokensPerSecondP50: Math.round(pct(rates, 50)), doneToEndP50Ms: r3(pct(tails, 50)), chunksPerCall: calls[0]?.chunks ?? 0 };
}

const fake = await startFakeOpenAI();
fake.mode = 'bench';
fake.benchChunks = CHUNKS;
const port = await freePort();
const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: false, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, UPSTREAM_OPENAI_URL: fake.url } });
await gw.server.start();
try {
  const account = await newAccount(gw, 1_000_000_000);
  const direct = () => call(`${fake.url}/chat/completions`, {}, 'gpt-4o-mini');
  const viaGateway = () => call(`http://127.0.0.1:${port}/v1/chat/completions`, { authorization: `Bearer ${account.liveKey}` }, 'lexi-v1-balanced-chat');
  // warm-up: connections, compiled validators, the first statements
  for (let i = 0; i < 5; i++) {
    await direct();
    await viaGateway();
  }
  const sides: { direct: Call[]; gateway: Call[] } = { direct: [], gateway: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of (r % 2 === 0 ? [['direct', direct], ['gateway', viaGateway]] : [['gateway', viaGateway], ['direct', direct]]) as Array<['direct' | 'gateway', () => Promise<Call>]>) {
      for (let i = 0; i < CALLS; i++) sides[name].push(await fn());
    }
  }
  const d = summary(sides.direct);
  const g = summary(sides.gateway);
  const streamingResults = { settings: { rounds: ROUNDS, calls: CALLS, chunks: CHUNKS }, direct: d, gateway: g, addedTtftP50Ms: r3(g.ttftP50Ms - d.ttftP50Ms), relayedShare: r3(g.tokensPerSecondP50 / d.tokensPerSecondP50) };
  console.log(JSON.stringify({ streamingResults }));
} finally {
  await gw.stop();
  await fake.close();
}
