// Retention (README "Retention"): the worker's scheduled job removes what outlived its lifetime
// and keeps what did not: output files (the prediction row stays and the result route says
// `outputs_expired`), webhook attempts and finished deliveries, expired or used sessions, OAuth
// states and tokens, sign-in hand-offs, one-time codes, idempotency records, ended rate-limit
// windows and finished invites. Ledger rows and prediction rows are never removed. Two workers on
// one database run it once per period. Time is the app clock, moved by the test.
import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { loadConfig } from '../../config.ts';
import { createApp } from '../../app.ts';
import type { App } from '../../app.ts';
import { createRetention } from '../../workers/retention.ts';
import type { Retention } from '../../workers/retention.ts';
import { takeJobLease } from '../../db/retention.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MODEL = '/api/v1/canvas-v1-fast-text-to-image';

let now = Date.UTC(2026, 10, 1);
const clock = () => now;
let gw: TestGateway;
let acct: Account;
let retention: Retention;
let second: App | null = null;

test.before(async () => {
  gw = await startGateway({ worker: true, queue: 'memory', clock, env: { OUTPUT_RETENTION_DAYS: '30', WEBHOOK_ATTEMPT_RETENTION_DAYS: '14', EXPIRED_RECORD_GRACE_DAYS: '1' } });
  acct = await newAccount(gw, 100_000);
  retention = createRetention(gw.app);
});
test.after.always(async () => {
  await retention?.stop();
  await second?.close();
  await gw?.stop();
});

/** The next period: the lease taken by the last run is free again. */
async function runNextPeriod(): Promise<NonNullable<Awaited<ReturnType<Retention['runOnce']>>>> {
  now += HOUR;
  const counts = await retention.runOnce();
  if (!counts) throw new Error('the lease was not free');
  return counts;
}

async function generate(): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': acct.liveKey, 'x-request-id': 'retention-req-1' }, payload: { prompt: 'a lighthouse' } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first())?.status === 'completed', { what: 'the prediction to complete', timeoutMs: 30_000 });
  return id;
}

const result = async (id: string) => {
  const res = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
  return { status: res.statusCode, body: res.result as { status: string; outputs: string[]; outputs_expired: boolean; has_nsfw_contents: boolean[] } };
};

const fileOf = (url: string) => path.join(gw.app.config.storageDir, new URL(url).pathname.replace(/^\/files\//, ''));
const exists = (file: string) => fs.stat(file).then(() => true, () => false);

test.serial('output files past OUTPUT_RETENTION_DAYS are removed; the row stays and the result route says outputs_expired; newer ones and the ledger are kept', async (t) => {
  const old = await generate();
  const oldRow = await gw.app.db('predictions').where({ id: old }).first();
  t.is(oldRow.http_request_id, 'retention-req-1', 'the submit\'s X-Request-Id is on the row');
  const before = await result(old);
  t.false(before.body.outputs_expired);
  t.is(before.body.outputs.length, 1);
  const oldFile = fileOf(before.body.outputs[0]!);
  t.true(await exists(oldFile));

  const sandbox = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': acct.testKey }, payload: { prompt: 'sample' } });
  const sandboxId = (sandbox.result as { request_id: string }).request_id;

  now += 31 * DAY;
  const recent = await generate();
  const recentFile = fileOf((await result(recent)).body.outputs[0]!);
  const ledger = await gw.app.db('credit_transactions').orderBy('id');
  const predictions = await gw.app.db('predictions').count({ n: '*' }).first();

  const counts = await runNextPeriod();
  t.is(counts.outputs, 1);
  t.false(await exists(oldFile), 'the old output file is removed');
  t.false(await exists(path.dirname(oldFile)), 'and its directory');
  const gone = await gw.server.inject({ method: 'GET', url: new URL(before.body.outputs[0]!).pathname });
  t.is(gone.statusCode, 404, 'an old output URL answers 404');
  t.true(await exists(recentFile), 'a recent output is kept');

  const after = await result(old);
  t.is(after.status, 200);
  t.is(after.body.status, 'completed');
  t.true(after.body.outputs_expired);
  t.deepEqual(after.body.outputs, []);
  t.deepEqual(after.body.has_nsfw_contents, []);
  const detail = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${old}`, headers: { 'x-api-key': acct.liveKey } });
  t.like(detail.result, { outputs: [], outputs_expired: true, status: 'completed' });
  const sample = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${sandboxId}/result`, headers: { 'x-api-key': acct.testKey } });
  t.like(sample.result, { outputs_expired: false }, 'sandbox samples are shared files, never removed');
  t.is((sample.result as { outputs: string[] }).outputs.length, 1);
  const kept = await result(recent);
  t.false(kept.body.outputs_expired);
  t.is(kept.body.outputs.length, 1);

  t.deepEqual(await gw.app.db('credit_transactions').orderBy('id'), ledger, 'ledger rows untouched');
  t.deepEqual(await gw.app.db('predictions').count({ n: '*' }).first(), predictions, 'prediction rows untouched');
  // a second run finds nothing more to do
  t.is((await runNextPeriod()).outputs, 0);
});

test.serial('expired or used records past the grace period are removed; live and recent ones are kept', async (t) => {
  const db = gw.app.db;
  const longAgo = now - 3 * DAY;
  const recently = now - HOUR;
  const later = now + DAY;
  const uid = acct.userId;
  const hex = (c: string) => c.repeat(64);

  await db('sessions').insert([
    { user_id: uid, token_hash: hex('1'), created_at: longAgo - DAY, expires_at: longAgo },
    { user_id: uid, token_hash: hex('2'), created_at: longAgo - DAY, expires_at: recently },
    { user_id: uid, token_hash: hex('3'), created_at: longAgo, expires_at: later, revoked_at: longAgo },
    { user_id: uid, token_hash: hex('4'), created_at: longAgo, expires_at: later },
  ]);
  await db('oauth_states').insert([
    { state_hash: hex('a'), nonce: 'n', code_verifier: 'v', created_at: longAgo, expires_at: longAgo },
    { state_hash: hex('b'), nonce: 'n', code_verifier: 'v', created_at: now, expires_at: later },
  ]);
  // Google sign-in hand-offs to a studio's domain (a new one clears only a few expired ones)
  await db('session_handoffs').insert([
    { code_hash: hex('a'), user_id: uid, studio_id: 1, expires_at: longAgo },
    { code_hash: hex('b'), user_id: uid, studio_id: 1, expires_at: recently },
    { code_hash: hex('c'), user_id: uid, studio_id: 1, expires_at: later },
  ]);
  await db('oauth_provider_records').insert([
    { kind: 'ClientCredentials', id: 'old', payload: '{}', expires_at: longAgo },
    { kind: 'ClientCredentials', id: 'live', payload: '{}', expires_at: later },
    { kind: 'Grant', id: 'forever', payload: '{}', expires_at: null },
  ]);
  await db('otp_codes').insert([
    { user_id: uid, purpose: 'otp', code_hash: hex('c'), created_at: longAgo, expires_at: longAgo },
    { user_id: uid, purpose: 'reset', code_hash: hex('d'), created_at: longAgo, expires_at: later, consumed_at: longAgo },
    { user_id: uid, purpose: 'reset', code_hash: hex('e'), created_at: now, expires_at: later },
  ]);
  await db('idempotency_keys').insert([
    { key_hash: hex('f'), user_id: uid, operation_id: 'x', request_hash: hex('0'), state: 'done', created_at: longAgo - DAY, expires_at: longAgo },
    { key_hash: hex('9'), user_id: uid, operation_id: 'x', request_hash: hex('0'), state: 'done', created_at: now, expires_at: later },
  ]);
  await db('rate_limits').insert([
    { bucket: 'old-window', window_start: longAgo, hits: 3 },
    { bucket: 'current-window', window_start: now - 60_000, hits: 3 },
  ]);
  const [teamId] = await db('teams').insert({ name: 'retention', created_at: longAgo });
  await db('team_invites').insert([
    { team_id: teamId, email: 'a@example.com', role: 'member', token_hash: hex('5'), created_at: longAgo, expires_at: longAgo },
    { team_id: teamId, email: 'b@example.com', role: 'member', token_hash: hex('6'), created_at: longAgo, expires_at: later, accepted_at: longAgo },
    { team_id: teamId, email: 'c@example.com', role: 'member', token_hash: hex('7'), created_at: now, expires_at: later },
  ]);
  const predictionId = (await db('predictions').first('id')).id as string;
  await db('webhook_deliveries').insert([
    { id: 'msg_old', prediction_id: predictionId, user_id: uid, url: 'https://r.example.com', status: 'delivered', attempts: 1, next_attempt_at: longAgo - 20 * DAY, created_at: longAgo - 20 * DAY, updated_at: longAgo - 20 * DAY },
    { id: 'msg_new', prediction_id: predictionId, user_id: uid, url: 'https://r.example.com', status: 'dead', attempts: 2, next_attempt_at: recently, created_at: longAgo - 20 * DAY, updated_at: recently },
  ]);
  await db('webhook_attempts').insert([
    { delivery_id: 'msg_old', number: 1, started_at: longAgo - 20 * DAY, duration_ms: 5, status_code: 200 },
    { delivery_id: 'msg_new', number: 1, started_at: longAgo - 20 * DAY, duration_ms: 5, status_code: 500 },
    { delivery_id: 'msg_new', number: 2, started_at: recently, duration_ms: 5, status_code: 500 },
  ]);
  // an alert's deliveries age the same way
  const [alertId] = await db('alerts').insert({ user_id: uid, team_id: null, subject: `u:${uid}`, kind: 'low_balance', period: '0', threshold: 10, value: 5, claim: 'x', created_at: longAgo - 20 * DAY });
  await db('alert_deliveries').insert([
    { id: 'msg_alert_old', alert_id: alertId, user_id: uid, url: 'https://r.example.com', status: 'delivered', attempts: 1, next_attempt_at: longAgo - 20 * DAY, created_at: longAgo - 20 * DAY, updated_at: longAgo - 20 * DAY },
    { id: 'msg_alert_new', alert_id: alertId, user_id: uid, url: 'https://r.example.com', status: 'dead', attempts: 2, next_attempt_at: recently, created_at: longAgo - 20 * DAY, updated_at: recently },
  ]);
  await db('alert_delivery_attempts').insert([
    { delivery_id: 'msg_alert_old', number: 1, started_at: longAgo - 20 * DAY, duration_ms: 5, status_code: 200 },
    { delivery_id: 'msg_alert_new', number: 1, started_at: longAgo - 20 * DAY, duration_ms: 5, status_code: 500 },
    { delivery_id: 'msg_alert_new', number: 2, started_at: recently, duration_ms: 5, status_code: 500 },
  ]);
  // webhook event filters: an old one of a finished run and of a run that is gone go; a running
  // run's, and a young one (its submit may still be being accepted), stay
  const run = (id: string, status: string) => ({ id, user_id: uid, model: 'canvas-v1-fast-text-to-image', status, is_test: false, input: '{}', price: 0, created_at: longAgo, updated_at: longAgo });
  await db('predictions').insert([run('f'.repeat(32), 'completed'), run('r'.repeat(32), 'processing')]);
  const filter = (id: string, at: number) => ({ prediction_id: id, user_id: uid, url: 'https://r.example.com', events: 'start', created_at: at });
  await db('webhook_event_filters').insert([filter('f'.repeat(32), longAgo), filter('g'.repeat(32), longAgo), filter('r'.repeat(32), longAgo), filter('y'.repeat(32), now)]);

  const counts = await runNextPeriod();
  const hashes = async (table: string, col = 'token_hash') => (await db(table).whereIn(col, [hex('1'), hex('2'), hex('3'), hex('4'), hex('5'), hex('6'), hex('7')]).pluck(col)).sort();
  t.deepEqual(await hashes('sessions'), [hex('2'), hex('4')], 'expired and revoked past the grace go; recently expired and live stay');
  t.deepEqual(await db('oauth_states').pluck('state_hash'), [hex('b')]);
  t.deepEqual((await db('session_handoffs').pluck('code_hash')).sort(), [hex('b'), hex('c')], 'expired past the grace go; recently expired and live stay');
  t.deepEqual((await db('oauth_provider_records').pluck('id')).sort(), ['forever', 'live']);
  t.deepEqual((await db('otp_codes').where({ user_id: uid }).pluck('code_hash')).sort(), [hex('e')]);
  t.deepEqual(await db('idempotency_keys').where({ user_id: uid }).whereIn('key_hash', [hex('f'), hex('9')]).pluck('key_hash'), [hex('9')]);
  t.deepEqual(await db('rate_limits').whereIn('bucket', ['old-window', 'current-window']).pluck('bucket'), ['current-window']);
  t.deepEqual(await hashes('team_invites'), [hex('7')]);
  t.deepEqual(await db('webhook_deliveries').pluck('id'), ['msg_new'], 'a finished delivery past its lifetime goes, with its attempts');
  t.deepEqual(await db('webhook_attempts').pluck('number'), [2], 'an old attempt of a kept delivery goes');
  t.deepEqual(await db('alert_deliveries').pluck('id'), ['msg_alert_new']);
  t.deepEqual(await db('alert_delivery_attempts').pluck('number'), [2]);
  t.deepEqual((await db('webhook_event_filters').pluck('prediction_id')).sort(), ['r'.repeat(32), 'y'.repeat(32)]);
  t.like(counts, { sessions: 2, oauth_states: 1, session_handoffs: 1, oauth_tokens: 1, one_time_codes: 2, team_invites: 2, webhook_deliveries: 2, webhook_event_filters: 2 });
  t.true(counts.idempotency_keys >= 1 && counts.rate_limit_windows >= 1 && counts.webhook_attempts >= 1);
  t.true(await waitFor(async () => (await gw.app.metrics.registry.getSingleMetricAsString('mediagate_retention_removed_total')).includes('kind="sessions"')));
});

test.serial('two workers on one database run the job once per period', async (t) => {
  second = await createApp(loadConfig({ ...gw.env, LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }), clock });
  const other = createRetention(second);
  now += HOUR;
  const both = await Promise.all([retention.runOnce(), other.runOnce()]);
  t.is(both.filter((c) => c !== null).length, 1, 'exactly one ran');
  now += HOUR / 2;
  t.deepEqual(await Promise.all([retention.runOnce(), other.runOnce()]), [null, null], 'within the period, neither runs again');
  now += HOUR / 2;
  const next = await Promise.all([other.runOnce(), retention.runOnce()]);
  t.is(next.filter((c) => c !== null).length, 1, 'the next period runs once again');
  await other.stop();
});

test.serial('start runs at once when the lease is free, and stop waits for that run and ends the timer', async (t) => {
  const job = createRetention(gw.app);
  now += HOUR;
  const runs = async () => (await gw.app.metrics.retentionRuns.get()).values.find((v) => v.labels.outcome === 'ok')?.value ?? 0;
  const before = await runs();
  job.start();
  await job.stop();
  t.is(await runs(), before + 1, 'the first tick ran and finished before stop returned');
  now += HOUR;
  job.start();
  t.is(await runs(), before + 1, 'a stopped job does not tick again');
});

test.serial('0 or off keeps outputs and attempts forever; RETENTION_INTERVAL_SECONDS=off never runs', (t) => {
  const base = { DATA_DIR: '/tmp/x' };
  t.like(loadConfig({ ...base, OUTPUT_RETENTION_DAYS: 'off', WEBHOOK_ATTEMPT_RETENTION_DAYS: '0' }).retention, { outputDays: null, webhookAttemptDays: null });
  t.like(loadConfig(base).retention, { outputDays: 30, webhookAttemptDays: 30, expiredGraceDays: 1, intervalMs: 3_600_000 });
  t.is(loadConfig({ ...base, RETENTION_INTERVAL_SECONDS: 'off' }).retention.intervalMs, null);
  t.throws(() => loadConfig({ ...base, OUTPUT_RETENTION_DAYS: 'soon' }), { message: /OUTPUT_RETENTION_DAYS/ });
});

test.serial('on SQLite too: the lease gives one run per period, and every removal query runs', async (t) => {
  let at = Date.UTC(2026, 10, 1);
  const lite = await startGateway({ db: 'sqlite', queue: 'memory', clock: () => at });
  try {
    const a = createRetention(lite.app);
    const b = createRetention(lite.app);
    const both = await Promise.all([a.runOnce(), b.runOnce()]);
    t.is(both.filter((c) => c !== null).length, 1);
    t.like(both.find((c) => c !== null), { outputs: 0, sessions: 0 });
    at += HOUR;
    t.truthy(await b.runOnce());
    t.is(await a.runOnce(), null);
  } finally {
    await lite.stop();
  }
});

test.serial('a job without a lease row yet gets one: of two workers asking at once, one inserts it and runs', async (t) => {
  const both = await Promise.all([takeJobLease(gw.app.db, 'new-job', 'a', now, HOUR), takeJobLease(gw.app.db, 'new-job', 'b', now, HOUR)]);
  t.deepEqual(both.filter(Boolean), [true]);
  t.false(await takeJobLease(gw.app.db, 'new-job', 'a', now + HOUR - 1, HOUR));
  t.true(await takeJobLease(gw.app.db, 'new-job', 'a', now + HOUR, HOUR));
});
