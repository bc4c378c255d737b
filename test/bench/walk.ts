// The files a reader opens to follow one production request from HTTP to its webhook:
// `node test/bench/walk.ts [--list | --functions]`. One in-process gateway on MariaDB with the in-process queue,
// a worker and a local webhook receiver; three warm-up requests (so that what runs once per
// process is done), then V8's precise coverage is reset, one production request with a webhook
// is submitted, and the coverage is taken once the receiver has its delivery. A file is on the
// walk when a function of it ran; behind an interface the reader opens the interface, not what
// implements it: the store (everything in db/store/ counts as db/store/types.ts), the queue
// transport (workers/queue/ as workers/queue/types.ts) and the model adapters (workers/adapters/ as
// workers/adapters/types.ts). Prints the files and lines per room, and
// with --list each file. A file that ran only because code behind an interface imports it (the
// store's wallet moves, its ledger rows) is behind it too: every file of the walk that imports it
// (statically, not type-only) is behind the interface. Run it on two checkouts to compare
// (test/bench/README.md, "walk.ts").
import inspector from 'node:inspector/promises';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import type { ICruiseResult, IConfiguration } from 'dependency-cruiser';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/services.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Behind these interfaces a reader opens the interface file only. */
const INTERFACES: Array<[RegExp, string]> = [
  [/^db\/store\//, 'db/store/types.ts'],
  [/^workers\/queue\//, 'workers/queue/types.ts'],
  // one adapter per provider kind, picked by the model's catalog entry: the reader opens the contract
  [/^workers\/adapters\//, 'workers/adapters/types.ts'],
];

const receiver = await startReceiver();
const gw = await startGateway({ worker: true, queue: 'memory', env: { WEBHOOK_ALLOW_INSECURE: 'true' } });
const acct = await newAccount(gw, 1_000_000);

async function oneRequest(): Promise<void> {
  const seen = receiver.received.length;
  const res = await gw.server.inject({
    method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': acct.liveKey },
    payload: { prompt: 'a lighthouse', width: 64, height: 64, num_inference_steps: 1 },
  });
  if (res.statusCode !== 200) throw new Error(`submit: ${res.statusCode} ${res.payload}`);
  await waitFor(() => receiver.received.length > seen, { what: 'the webhook delivery', timeoutMs: 60_000 });
}

for (let i = 0; i < 3; i++) await oneRequest();
const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
// taking the coverage resets its counters: what follows counts the one request only
await session.post('Profiler.takePreciseCoverage');
await oneRequest();
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();

const ran = new Set<string>();
const ranFunctions = new Map<string, string[]>();
for (const script of result) {
  if (!script.url.startsWith('file://')) continue;
  const file = path.relative(ROOT, fileURLToPath(script.url));
  if (file.startsWith('..') || file.startsWith('node_modules') || file.startsWith('test/') || !file.endsWith('.ts')) continue;
  // the module's own top-level function ran when it was loaded, before the reset
  const called = script.functions.filter((f) => f.functionName !== '' && f.ranges[0]!.count > 0);
  if (called.length > 0) ran.add(file);
  ranFunctions.set(file, [...new Set(called.map((f) => f.functionName))]);
}
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const { output } = await cruise([...ran], { ...config.options, baseDir: ROOT, tsPreCompilationDeps: true });
const importers = new Map<string, Set<string>>();
for (const m of (output as ICruiseResult).modules) {
  if (!ran.has(m.source)) continue;
  for (const d of m.dependencies) {
    if (!ran.has(d.resolved) || d.dependencyTypes.includes('type-only')) continue;
    if (!importers.has(d.resolved)) importers.set(d.resolved, new Set());
    importers.get(d.resolved)!.add(m.source);
  }
}
const behind = new Set([...ran].filter((f) => INTERFACES.some(([re]) => re.test(f))));
for (let grew = true; grew;) {
  grew = false;
  for (const f of ran) {
    const by = importers.get(f);
    if (behind.has(f) || !by || by.size === 0 || ![...by].every((i) => behind.has(i))) continue;
    behind.add(f);
    grew = true;
  }
}
const interfaceOf = (f: string) => INTERFACES.find(([re]) => re.test(f))?.[1];
const walked = new Set([...ran].flatMap((f) => (behind.has(f) ? (interfaceOf(f) ? [interfaceOf(f)!] : []) : [f])));
const lines = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length;
const byRoom = (files: Set<string>) => {
  const rooms: Record<string, { files: number; lines: number }> = {};
  for (const f of files) {
    const room = f.includes('/') ? f.split('/')[0]! : '(root)';
    rooms[room] ??= { files: 0, lines: 0 };
    rooms[room].files++;
    rooms[room].lines += lines(f);
  }
  return rooms;
};
const total = (files: Set<string>) => [...files].reduce((n, f) => n + lines(f), 0);
const withFunctions = process.argv.includes('--functions');
if (process.argv.includes('--list') || withFunctions) {
  for (const f of [...walked].sort()) {
    console.log(`${String(lines(f)).padStart(5)} ${f}${withFunctions ? `  ${(ranFunctions.get(f) ?? []).join(' ')}` : ''}`);
  }
}
console.log(JSON.stringify({
  walk: { files: walked.size, lines: total(walked), rooms: byRoom(walked) },
  ran: { files: ran.size, lines: total(ran), db: [...ran].filter((f) => f.startsWith('db/')).length },
  behindInterfaces: [...behind].sort(),
}, null, 1));
await gw.stop();
await receiver.close();
process.exit(0);
