// The shutdown is bounded (docs/operating/production.md "Shutdown"): a worker whose RabbitMQ stops
// answering mid-shutdown waits for its consumers' cancel at most CONSUMER_CANCEL_BOUND_MS, says
// so and goes on with the next steps, and exits 1 by its deadline (SHUTDOWN_GRACE_MS + 10 s),
// naming what it was waiting for; a second signal ends a shutdown at once. The broker is stalled
// through a relay of the test's own (test/helpers/amqp-relay.ts); the shared RabbitMQ is not touched.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnGateway } from '../helpers/processes.ts';
import type { GatewayProcess } from '../helpers/processes.ts';
import { stallingRelay } from '../helpers/amqp-relay.ts';
import type { StallingRelay } from '../helpers/amqp-relay.ts';
import { deleteTopology, freshDatabase, uniqueName, waitFor } from '../helpers/services.ts';
import { loadConfig } from '../../config.ts';
import { topics } from '../../app.ts';
import { CONSUMER_CANCEL_BOUND_MS, shutdownDeadlineMs } from '../../main.ts';

type Line = { msg?: string; waitingFor?: string[]; deadlineMs?: number; signal?: string; time?: number; waitedMs?: number };

/** A worker process on a fresh database, its queue through a relay the test can stall; up and consuming. */
async function stalledWorker(t: ExecutionContext, graceMs: number): Promise<{ proc: GatewayProcess; relay: StallingRelay; deadlineMs: number }> {
  const db = await freshDatabase(undefined, { migrated: true });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-stop-'));
  const relay = await stallingRelay();
  const env = {
    ROLE: 'worker', DATABASE_URL: db.url, AMQP_URL: relay.url, AMQP_PREFIX: uniqueName('stop').toLowerCase(), DATA_DIR: dir,
    ENCRYPTION_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: String(graceMs),
  };
  const proc = spawnGateway(env);
  t.teardown(async () => {
    await proc.kill();
    await relay.close();
    await deleteTopology(env.AMQP_PREFIX, topics(loadConfig(env)));
    await db.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  // a loaded machine takes its time to start node on the whole gateway
  await waitFor(() => {
    if (proc.child.exitCode !== null) throw new Error(`worker exited: ${proc.output()}`);
    return proc.output().includes('mediagate worker consuming');
  }, { what: 'the worker to consume', timeoutMs: 120_000, intervalMs: 100 });
  return { proc, relay, deadlineMs: shutdownDeadlineMs(loadConfig(env)) };
}

/** The exit code, or 'still running' when the process has not exited within ms. */
async function exitWithin(proc: GatewayProcess, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      proc.exited,
      new Promise<'still running'>((resolve) => { timer = setTimeout(() => resolve('still running'), ms); }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function lines(proc: GatewayProcess): Line[] {
  return proc.output().split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as Line];
    } catch {
      return [];
    }
  });
}

const CANCEL = 'the consumers to be cancelled (queue)';

test('a worker whose broker stalls during shutdown waits for the consumer cancel at most its bound, goes on, and exits 1 by its deadline', async (t) => {
  const graceMs = 200;
  const { proc, relay, deadlineMs } = await stalledWorker(t, graceMs);
  t.is(deadlineMs, graceMs + 10_000);
  relay.freeze();
  const signalled = performance.now();
  proc.child.kill('SIGTERM');
  // the deadline plus a wide margin for a loaded machine; without a deadline the worker waits on
  // the broker's reply to its consumer cancel until RabbitMQ drops the connection (minutes)
  const code = await exitWithin(proc, deadlineMs + 30_000);
  const elapsed = performance.now() - signalled;
  t.is(code, 1, proc.output());
  // not before the deadline: the shutdown was given its time
  t.true(elapsed >= deadlineMs - 100, `exited after ${Math.round(elapsed)} ms`);
  const warning = lines(proc).find((l) => l.msg === `shutdown did not finish within ${deadlineMs} ms; exiting`);
  t.truthy(warning, proc.output());
  t.is(warning?.signal, 'SIGTERM');
  // The cancel got its own bound, said so, and the shutdown went on to the next steps (the grace,
  // the hand-back, the closes): the deadline caught it on a later one. Without the bound, the
  // cancel held it to the deadline.
  const started = lines(proc).find((l) => l.msg === 'shutting down');
  const bounded = lines(proc).find((l) => l.msg === `shutdown step not done within ${CONSUMER_CANCEL_BOUND_MS} ms; going on without it`);
  t.truthy(bounded, proc.output());
  t.deepEqual(bounded?.waitingFor, [CANCEL]);
  t.true(bounded!.time! - started!.time! >= CONSUMER_CANCEL_BOUND_MS - 50, `warned ${bounded!.time! - started!.time!} ms after the signal`);
  t.true(bounded!.time! < warning!.time!);
  t.is(warning?.waitingFor?.length, 1);
  t.false(warning?.waitingFor?.includes(CANCEL), JSON.stringify(warning?.waitingFor));
});

test('a second signal ends a shutdown that waits, at once, exit code 1', async (t) => {
  // a long grace: the deadline (130 s) is far off, so only the second signal explains a quick exit
  const { proc, relay, deadlineMs } = await stalledWorker(t, 120_000);
  relay.freeze();
  proc.child.kill('SIGTERM');
  await waitFor(() => lines(proc).some((l) => l.msg === 'shutting down'), { what: 'the shutdown to begin', timeoutMs: 30_000, intervalMs: 50 });
  const second = performance.now();
  proc.child.kill('SIGINT');
  const code = await exitWithin(proc, 20_000);
  t.is(code, 1, proc.output());
  t.true(performance.now() - second < deadlineMs / 2);
  const line = lines(proc).find((l) => l.msg === 'second signal during shutdown; exiting now');
  t.truthy(line, proc.output());
  t.is(line?.signal, 'SIGINT');
  // the consumer cancel, or the step after it once the cancel's bound passed on a slow machine
  t.is(line?.waitingFor?.length, 1, JSON.stringify(line?.waitingFor));
});
