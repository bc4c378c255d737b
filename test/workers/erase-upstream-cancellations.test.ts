// The cancels of an erased account's provider jobs are durable (db/upstream-cancellations.ts,
// workers/upstream-cancellations.ts): the erasing transaction records each job still running, the
// eraser tries each right after the commit, and the subscription job tries again those that failed
// (or that a process stopped before trying) until the provider has stopped the job, answers that it
// no longer knows it, or a day has passed. On MariaDB and SQLite; the provider (Replicate) is nock.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { captureLog } from '../helpers/logs.ts';
import { uniqueName } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { eraseAccount } from '../../db/account-deletion.ts';
import { deleteExpiredRecords } from '../../db/retention.ts';
import { recordUpstreamCancellation } from '../../db/upstream-cancellations.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';
import { createSubscriptionJob } from '../../workers/subscriptions.ts';

const REPLICATE = 'https://api.replicate-erasecancel.test';
const ENV = { UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: 'r8_erasecancel_secret' };
const MODEL = 'lumen-pro-text-to-image';
const DAY = 86_400_000;

const engines = ['mysql', 'sqlite'] as const;
type Engine = typeof engines[number];
const gws = {} as Record<Engine, TestGateway>;
const logs = captureLog('info');

onlyLocalNetwork(test);
test.before(async () => {
  for (const db of engines) gws[db] = await startGateway({ db, queue: 'memory', log: logs.log, env: ENV });
});
test.after.always(async () => {
  for (const db of engines) await gws[db]?.stop();
});

/** Runs a scenario on each engine, then checks each ledger. */
function both(title: string, fn: (t: ExecutionContext, gw: TestGateway) => Promise<void>) {
  test.serial(title, async (t) => {
    for (const db of engines) {
      await fn(t, gws[db]);
      await assertLedger(t, gws[db].app.db);
    }
  });
}

/** An account with one personal prediction whose Replicate job is running; the job's id. */
async function accountWithRunningJob(gw: TestGateway): Promise<{ userId: number; job: string; predictionId: string }> {
  const acct = await newAccount(gw, 10_000);
  const now = gw.app.clock();
  const predictionId = newPredictionId(now);
  const job = uniqueName('rep');
  await gw.app.store.submit({ p: { id: predictionId, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x' }, price: 100, webhookUrl: null, source: 'api' }, now });
  await gw.app.db('predictions').where({ id: predictionId }).update({
    status: 'processing', upstream_name: 'replicate', upstream_job_id: job, upstream_status: 'processing', upstream_model: 'black-forest-labs/flux-1.1-pro', upstream_polls: 1, upstream_submitted_at: now,
  });
  return { userId: acct.userId, job, predictionId };
}

/** Replicate's cancel of `job`, answering `status` each time; the count of calls. */
function replicateCancel(job: string, status: number, times = 1) {
  const asked = { n: 0 };
  nock(REPLICATE).post(`/v1/predictions/${job}/cancel`).times(times).reply(() => {
    asked.n += 1;
    return status === 200 ? [200, { id: job, status: 'canceled' }] : status === 404 ? [404, { detail: 'Not found.' }] : [status, { detail: 'upstream trouble' }];
  });
  return asked;
}

const row = (gw: TestGateway, job: string) => gw.app.db('upstream_cancellations').where({ provider: 'replicate', upstream_job_id: job }).first();
const job = (gw: TestGateway) => createSubscriptionJob(gw.app);
const linesAbout = (job: string, from: number) => logs.parsed<{ level: number; msg: string; upstreamJobId?: string; event?: string }>().slice(from).filter((l) => l.upstreamJobId === job);

both('a cancel that fails at erasure is recorded, tried again by the subscription job after its backoff, and done once the provider cancels', async (t, gw) => {
  const { userId, job: rep, predictionId } = await accountWithRunningJob(gw);
  const from = logs.lines.length;
  const first = replicateCancel(rep, 503);
  const now = Date.now();
  t.like(await eraseAccountAndFiles(gw.app, userId, now, { immediate: true }), { kind: 'erased' });
  t.is(first.n, 1);
  const failed = await row(gw, rep);
  t.like(failed, { model: MODEL, prediction_id: predictionId, attempts: 1, done_at: null, outcome: null });
  t.regex(String(failed.last_error), /unavailable/);
  // nothing of the person is kept with it
  t.false(Object.keys(failed).some((k) => /user|email|input|prompt/.test(k)));
  const due = Number(failed.next_attempt_at);
  t.is(due - now, 60_000, 'the first wait is a minute');
  // not due yet: nock refuses any call it does not expect
  await job(gw).run(due - 1);
  t.like(await row(gw, rep), { attempts: 1, done_at: null });
  const second = replicateCancel(rep, 200);
  await job(gw).run(due);
  t.is(second.n, 1);
  t.like(await row(gw, rep), { attempts: 2, outcome: 'cancelled' });
  t.truthy((await row(gw, rep)).done_at);
  // done: a later run asks nothing
  await job(gw).run(due + DAY);
  t.like(await row(gw, rep), { attempts: 2 });
  const lines = linesAbout(rep, from);
  t.deepEqual(lines.map((l) => l.level), [40, 30], 'a warning for the failure, then info for the cancel; no error');
  t.regex(lines[0]!.msg, /could not cancel an erased account's upstream job at the provider; tried again later/);
  t.regex(lines[1]!.msg, /was cancelled at the provider/);
});

both('a cancel the provider confirms at erasure is done and never asked again', async (t, gw) => {
  const { userId, job: rep } = await accountWithRunningJob(gw);
  const asked = replicateCancel(rep, 200);
  const now = Date.now();
  t.like(await eraseAccountAndFiles(gw.app, userId, now, { immediate: true }), { kind: 'erased' });
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'cancelled' });
  await job(gw).run(now + 2 * 60 * 60_000);
  await job(gw).run(now + 2 * DAY);
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1 });
});

both('a job the provider no longer knows (404) counts as done, without a warning', async (t, gw) => {
  const { userId, job: rep } = await accountWithRunningJob(gw);
  const from = logs.lines.length;
  const asked = replicateCancel(rep, 404);
  const now = Date.now();
  t.like(await eraseAccountAndFiles(gw.app, userId, now, { immediate: true }), { kind: 'erased' });
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'unknown' });
  t.truthy((await row(gw, rep)).done_at);
  await job(gw).run(now + DAY);
  t.is(asked.n, 1);
  t.deepEqual(linesAbout(rep, from).map((l) => l.level), [30]);
});

both('a process stopped between the erasing commit and the cancel leaves the job recorded, and the subscription job cancels it', async (t, gw) => {
  const { userId, job: rep } = await accountWithRunningJob(gw);
  const now = Date.now();
  // the database's steps alone: no provider call follows them here
  t.like(await eraseAccount(gw.app.db, userId, now, { immediate: true }), { kind: 'erased' });
  t.like(await row(gw, rep), { attempts: 0, done_at: null });
  const asked = replicateCancel(rep, 200);
  await job(gw).run(now);
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'cancelled' });
});

both('two subscription job runs at once ask the provider once for a due cancel', async (t, gw) => {
  const rep = uniqueName('rep');
  const now = Date.now();
  await recordUpstreamCancellation(gw.app.db, { provider: 'replicate', jobId: rep, model: MODEL, predictionId: newPredictionId(now) }, now);
  const asked = replicateCancel(rep, 200, 2);
  await Promise.all([job(gw).run(now), job(gw).run(now)]);
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'cancelled' });
});

both('a day after the erasure a cancel still failing is given up with one warning naming the provider and the job', async (t, gw) => {
  const rep = uniqueName('rep');
  const created = Date.now() - DAY;
  await recordUpstreamCancellation(gw.app.db, { provider: 'replicate', jobId: rep, model: MODEL, predictionId: newPredictionId(created) }, created);
  const from = logs.lines.length;
  const asked = replicateCancel(rep, 502);
  await job(gw).run(Date.now());
  t.is(asked.n, 1);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'gave_up' });
  t.truthy((await row(gw, rep)).done_at);
  await job(gw).run(Date.now() + DAY);
  t.is(asked.n, 1, 'not asked again');
  const lines = linesAbout(rep, from);
  t.deepEqual(lines.map((l) => [l.level, l.event]), [[40, 'upstream_job_not_cancelled']]);
  t.true(lines[0]!.msg.includes(`"replicate" (job ${rep})`));
});

both('a job whose model is no longer served keeps its warning and is done without a call', async (t, gw) => {
  const rep = uniqueName('rep');
  const now = Date.now();
  await recordUpstreamCancellation(gw.app.db, { provider: 'replicate', jobId: rep, model: 'no-such-model-any-more', predictionId: newPredictionId(now) }, now);
  const from = logs.lines.length;
  await job(gw).run(now);
  t.like(await row(gw, rep), { attempts: 1, outcome: 'unserved' });
  const lines = linesAbout(rep, from);
  t.deepEqual(lines.map((l) => l.level), [40]);
  t.regex(lines[0]!.msg, /no longer served/);
});

both('the retention job removes done cancels after the grace and keeps one still being tried', async (t, gw) => {
  const now = Date.now();
  const [done, old, pending] = [uniqueName('rep'), uniqueName('rep'), uniqueName('rep')];
  for (const rep of [done, old, pending]) await recordUpstreamCancellation(gw.app.db, { provider: 'replicate', jobId: rep, model: MODEL, predictionId: newPredictionId(now) }, now - 3 * DAY);
  await gw.app.db('upstream_cancellations').where({ upstream_job_id: old }).update({ done_at: now - 2 * DAY, outcome: 'cancelled' });
  await gw.app.db('upstream_cancellations').where({ upstream_job_id: done }).update({ done_at: now - 60_000, outcome: 'cancelled' });
  const counts = await deleteExpiredRecords(gw.app.db, now, now - DAY, 0);
  t.true(counts.upstream_cancellations >= 1);
  t.deepEqual((await gw.app.db('upstream_cancellations').whereIn('upstream_job_id', [done, old, pending]).pluck('upstream_job_id')).sort(), [done, pending].sort());
});
