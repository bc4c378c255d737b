// RabbitMQ's cost per message for the gateway's pattern (test/bench/README.md, "amqp-cost.ts"): `node test/bench/amqp-cost.ts [n] [rate] [burst]`.
// This process publishes n prediction-sized messages through the real transport (workers/queue/amqp.ts:
// persistent, mandatory, confirmed, the API's publish) at `rate` a second in bursts of `burst` (a group
// commit's submits answer together), and a child process consumes them like the worker (prefetch 16,
// a handler of ~2 ms, acks per turn). Prints per message: beam.smp's CPU (utime+stime from /proc) and
// its read/write system calls and context switches, and the Node CPU of the publisher and of the consumer.
// beam.smp's figures include any other client of a shared broker: run it alternating with the code
// compared against (e.g. a worktree of the base commit) and repeat.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectAmqp } from '../../workers/queue/amqp.ts';
import type { TopicSpec } from '../../workers/queue/types.ts';
import { AMQP_URL, deleteTopology, uniqueName } from '../helpers/services.ts';
import { pidsByName, processCpuMs } from './lib.ts';

const TOPIC: TopicSpec = { name: 'predictions', retryDelaysMs: [2_000, 10_000, 30_000], maxRetries: 3 };
const PREFETCH = Number(process.env.WORKER_CONCURRENCY ?? 16);
const HANDLER_MS = Number(process.env.HANDLER_MS ?? 2);

/** A prediction message as the API publishes it (workers/dispatch.ts: id, request id, the row's snapshot). */
function message(i: number): unknown {
  const id = `019aa5c0e7f1c3d2a9b8${String(i).padStart(12, '0')}`;
  return {
    id, reqId: 'req_0123456789abcdef',
    row: {
      user_id: 12, team_id: null, api_key_id: 1234, model: 'mediagate/local-image', is_test: false,
      input: JSON.stringify({ prompt: 'a cat in a hat sitting on a mat, watercolor, soft light', width: 64, height: 64, steps: 1 }),
      price: 300, webhook_url: null, http_request_id: 'req_0123456789abcdef', created_at: 1795507586000, source: 'api', embed_code_id: null,
      embed_visitor: null, studio_id: null, studio_markup: 0, payer_user_id: 12, payer_team_id: null, list_price: 300, discount_percent: 0,
    },
  };
}

/** read+write system calls (/proc/<pid>/io) and context switches (every thread's) of a process. */
function kernelCounts(pid: number | 'self'): { syscalls: number; switches: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const syscalls = Number(/syscr: (\d+)/.exec(io)?.[1]) + Number(/syscw: (\d+)/.exec(io)?.[1]);
    let switches = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        switches += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]);
      } catch {
        // the thread has gone
      }
    }
    return { syscalls, switches };
  } catch {
    return { syscalls: Number.NaN, switches: Number.NaN };
  }
}

async function consumer(prefix: string, n: number): Promise<void> {
  const queue = await connectAmqp(AMQP_URL, { prefix });
  await queue.setup([TOPIC]);
  let handled = 0;
  await queue.consume('predictions', async () => {
    if (HANDLER_MS > 0) await sleep(HANDLER_MS);
    if (++handled === n) setTimeout(() => process.send?.('done'), 100); // the last acks leave in the next turn
    return { kind: 'ack' };
  }, { prefetch: PREFETCH });
  process.send?.('ready');
  await new Promise<void>((resolve) => process.once('disconnect', resolve));
  await queue.close();
}

async function publisher(n: number, rate: number, burst: number): Promise<void> {
  const beam = pidsByName(['beam.smp'])[0];
  if (beam === undefined) throw new Error('no beam.smp process on this machine: the broker must be local');
  const prefix = uniqueName('bench-amqp-cost');
  const queue = await connectAmqp(AMQP_URL, { prefix });
  await queue.setup([TOPIC]);
  const child = fork(new URL(import.meta.url), ['consume', prefix, String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const said = (what: string) => new Promise<void>((resolve, reject) => {
    const onMessage = (m: unknown) => { if (m === what) { child.off('message', onMessage); resolve(); } };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the consumer exited (${code})`)));
  });
  await said('ready');
  const done = said('done');
  // warm-up: the first messages of a fresh connection and queue cost more
  await Promise.all(Array.from({ length: 200 }, (_, i) => queue.publish('predictions', message(i))));
  await sleep(300);

  const before = { beam: processCpuMs(beam), beamK: kernelCounts(beam), pub: process.cpuUsage(), pubK: kernelCounts('self'), con: processCpuMs(child.pid!), conK: kernelCounts(child.pid!) };
  const t0 = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let sent = 0; sent < n - 200; sent += burst) {
    const due = t0 + (sent * 1000) / rate - performance.now();
    if (due > 0) await sleep(due);
    for (let j = 0; j < burst && sent + j < n - 200; j++) pending.push(queue.publish('predictions', message(200 + sent + j)));
  }
  await Promise.all(pending);
  await done;
  const wallMs = performance.now() - t0;
  const pubCpu = process.cpuUsage(before.pub);
  const m = n - 200;
  const per = (x: number) => (x / m).toFixed(2);
  const beamK = kernelCounts(beam), pubK = kernelCounts('self'), conK = kernelCounts(child.pid!);
  console.log(JSON.stringify({
    messages: m, rate, burst, prefetch: PREFETCH, handlerMs: HANDLER_MS, achievedRate: Math.round((m * 1000) / wallMs),
    beamUsPerMsg: Number(((processCpuMs(beam) - before.beam) * 1000 / m).toFixed(0)),
    beamSyscallsPerMsg: Number(per(beamK.syscalls - before.beamK.syscalls)), beamSwitchesPerMsg: Number(per(beamK.switches - before.beamK.switches)),
    publisherUsPerMsg: Number(((pubCpu.user + pubCpu.system) / m).toFixed(0)), publisherSyscallsPerMsg: Number(per(pubK.syscalls - before.pubK.syscalls)),
    consumerUsPerMsg: Number(((processCpuMs(child.pid!) - before.con) * 1000 / m).toFixed(0)), consumerSyscallsPerMsg: Number(per(conK.syscalls - before.conK.syscalls)),
  }));
  child.disconnect();
  await new Promise((resolve) => child.once('exit', resolve));
  await queue.close();
  await deleteTopology(prefix, [TOPIC]);
}

if (process.argv[2] === 'consume') await consumer(process.argv[3]!, Number(process.argv[4]) - 0);
else await publisher(Number(process.argv[2] ?? 3_200), Number(process.argv[3] ?? 400), Number(process.argv[4] ?? 8));
