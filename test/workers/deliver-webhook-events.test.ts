// Webhook events while a prediction runs (webhook_events_filter, docs/api/webhooks.md "Events
// while it runs"): through the real worker with a local adapter that reports progress and log
// lines, on SQLite and MariaDB with the in-process queue and on MariaDB with RabbitMQ; then the
// throttle and the ordering lease on their own, with the app's clock moved by the test.
import test from 'ava';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import nock from 'nock';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import type { Receiver, Received } from '../helpers/receiver.ts';
import { insertFilter } from '../../db/webhooks.ts';
import { closeRunningEvents, forgetSecrets, sendRunningEvent } from '../../workers/deliver-webhook.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
// 2 images of 20 steps: 40 progress reports and 4 log lines, each written at once (RUN_PROGRESS_WRITE_MS=0)
const INPUT = { prompt: 'events', width: 64, height: 64, num_images: 2, num_inference_steps: 20 };

/** A new account, its signing secrets read afresh (they are cached for a few seconds, and this file's clock is its own). */
async function account(gw: TestGateway): Promise<Account> {
  const acct = await newAccount(gw, 100_000);
  forgetSecrets(gw.app.db, { userId: acct.userId, teamId: null });
  return acct;
}

async function secretOf(gw: TestGateway, acct: Account, key = acct.liveKey): Promise<string> {
  const res = await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { 'x-api-key': key } });
  return (res.result as { secret: string }).secret;
}

async function submit(gw: TestGateway, key: string, query: string) {
  return gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}?${query}`, headers: { 'x-api-key': key }, payload: INPUT });
}

const isResult = (p: Record<string, unknown>) => p.status === 'completed' || p.status === 'failed';

function verified(secret: string, received: readonly Received[]): Array<Record<string, unknown>> {
  const wh = new Webhook(secret);
  return received.map((r) => wh.verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>);
}

for (const [db, queue] of [['sqlite', 'memory'], ['mysql', 'memory'], ['mysql', 'amqp']] as const) {
  test.serial(`${db}, ${queue} queue: a run sends start, one throttled progress or logs event and its result last, each signed; no filter sends the result only`, async (t) => {
    // The clock stands still: the throttle (5 s) lets exactly one progress or logs event through.
    const frozen = Date.now();
    const gw = await startGateway({
      db, queue, worker: true, clock: () => frozen,
      env: { WEBHOOK_ALLOW_INSECURE: 'true', RUN_PROGRESS_WRITE_MS: '0', WEBHOOK_EVENTS_INTERVAL_MS: '5000' },
    });
    t.teardown(() => gw.stop());
    const acct = await account(gw);
    const receiver = await startReceiver();
    t.teardown(() => receiver.close());
    const hook = encodeURIComponent(receiver.url);

    const res = await submit(gw, acct.liveKey, `webhook=${hook}&webhook_events_filter=start,progress&webhook_events_filter=logs&webhook_events_filter=completed`);
    t.is(res.statusCode, 200, res.payload);
    const id = (res.result as { request_id: string }).request_id;
    await waitFor(() => receiver.received.some((r) => isResult(JSON.parse(r.body))), { what: 'the result', timeoutMs: 30_000 });
    const bodies = verified(await secretOf(gw, acct), receiver.received);
    t.true(bodies.every((b) => b.id === id));
    t.is(bodies[0]!.event, 'start');
    t.is(bodies[0]!.status, 'processing');
    const updates = bodies.slice(1, -1);
    t.is(updates.length, 1, JSON.stringify(bodies.map((b) => b.event ?? b.status)));
    const update = updates[0]!;
    t.true(update.event === 'progress' || update.event === 'logs');
    t.is(update.status, 'processing');
    t.is(typeof update.progress === 'number' || update.progress === null, true);
    t.true('queue_position' in update);
    if (update.event === 'logs') t.regex(String((update.logs as Array<{ message: string }>)[0]!.message), /^image 1\/2/);
    // the result is last, has the result's fields only, and is the delivery the log records
    const last = bodies.at(-1)!;
    t.is(last.status, 'completed');
    t.false('event' in last);
    t.is((last.outputs as string[]).length, 2);
    const deliveries = await gw.app.db('webhook_deliveries').where({ prediction_id: id });
    t.is(deliveries.length, 1);
    t.is(receiver.received.at(-1)!.headers['webhook-id'], deliveries[0].id);
    // the filter's row went with the result's first attempt
    t.is((await gw.app.db('webhook_event_filters').where({ prediction_id: id })).length, 0);
    // each event has its own webhook-id
    t.is(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, receiver.received.length);

    // no filter: the result only, as always
    const plain = await startReceiver();
    t.teardown(() => plain.close());
    const again = await submit(gw, acct.liveKey, `webhook=${encodeURIComponent(plain.url)}`);
    t.is(again.statusCode, 200, again.payload);
    await waitFor(() => plain.received.length > 0, { what: 'the plain result', timeoutMs: 30_000 });
    await gw.app.queue.drain(10_000);
    t.deepEqual(verified(await secretOf(gw, acct), plain.received).map((b) => b.status), ['completed']);
  });
}

let gw: TestGateway;
let acct: Account;
let clock = 0;

test.before(async () => {
  clock = Date.now();
  gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true, clock: () => clock, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_EVENTS_INTERVAL_MS: '5000' } });
  acct = await account(gw);
});
test.beforeEach(() => {
  if (acct) forgetSecrets(gw.app.db, { userId: acct.userId, teamId: null });
});
test.after.always(async () => {
  await gw?.stop();
});

test.serial('webhook_events_filter: an unknown event is 422 naming it, a filter without webhook is 422, and nothing is charged', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const hook = encodeURIComponent(receiver.url);
  const unknown = await submit(gw, acct.liveKey, `webhook=${hook}&webhook_events_filter=start,finished`);
  t.is(unknown.statusCode, 422);
  const item = (unknown.result as { detail: Array<{ loc: string[]; msg: string }> }).detail[0]!;
  t.deepEqual(item.loc, ['query', 'webhook_events_filter']);
  t.regex(item.msg, /"finished"/);
  t.regex(item.msg, /start, progress, logs, completed/);
  const alone = await submit(gw, acct.liveKey, 'webhook_events_filter=completed');
  t.is(alone.statusCode, 422);
  t.regex((alone.result as { detail: Array<{ msg: string }> }).detail[0]!.msg, /needs a webhook/);
  const empty = await submit(gw, acct.liveKey, `webhook=${hook}&webhook_events_filter=`);
  t.is(empty.statusCode, 422);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 0);
  t.is((await gw.app.db('webhook_event_filters')).length, 0);
  t.is(receiver.received.length, 0);
});

test.serial('a run that asked for no events costs its worker no look for a filter; a copy of its message that does not say (the sweeper\'s) still finds one', async (t) => {
  const seen: string[] = [];
  const onQuery = (q: { sql: string }) => { if (q.sql.includes('webhook_event_filters')) seen.push(q.sql); };
  gw.app.db.on('query', onQuery);
  t.teardown(() => { gw.app.db.off('query', onQuery); });
  const plain = await submit(gw, acct.liveKey, '');
  t.is(plain.statusCode, 200, plain.payload);
  const plainId = (plain.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id: plainId }).first()).status === 'completed', { what: 'the plain run', timeoutMs: 30_000 });
  t.deepEqual(seen, [], 'no query of the filters for a run without events');

  // queued as the submit would, then published as the sweeper publishes it: no ticket, no word on events
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { newPredictionId } = await import('../../db/predictions/record.ts');
  const id = newPredictionId(clock);
  await insertFilter(gw.app.db, { predictionId: id, userId: acct.userId, url: receiver.url, events: ['start', 'completed'] }, clock);
  const outcome = await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: MODEL, input: INPUT, price: 1, webhookUrl: receiver.url, source: 'api' }, now: clock });
  t.true(outcome.accepted);
  await gw.app.dispatcher.dispatch(id);
  await waitFor(() => receiver.received.some((r) => isResult(JSON.parse(r.body))), { what: 'the result', timeoutMs: 30_000 });
  t.deepEqual(verified(await secretOf(gw, acct), receiver.received).map((b) => b.event ?? b.status), ['start', 'completed']);
});

test.serial('a result delivery reads its prediction, the provider\'s metadata and whether events were asked for in one query; without a filter it writes no filter row', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const seen: string[] = [];
  const onQuery = (q: { sql: string }) => { if (/webhook_event_filters|prediction_costs|from `?webhook_deliveries/i.test(q.sql)) seen.push(q.sql); };
  gw.app.db.on('query', onQuery);
  t.teardown(() => { gw.app.db.off('query', onQuery); });
  const res = await submit(gw, acct.liveKey, `webhook=${encodeURIComponent(receiver.url)}`);
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.length > 0, { what: 'the result', timeoutMs: 30_000 });
  const [body] = verified(await secretOf(gw, acct), receiver.received);
  t.is(body!.status, 'completed');
  t.like(body!.provider_metadata, { width: 64, height: 64 }, 'the metadata the completion recorded');
  const reads = seen.filter((q) => /^select/i.test(q) && /webhook_deliveries/.test(q));
  t.is(reads.length, 1, 'one read of the delivery');
  t.regex(reads[0]!, /prediction_costs/);
  t.regex(reads[0]!, /webhook_event_filters/);
  t.deepEqual(seen.filter((q) => /^(update|delete|select)/i.test(q) && !/webhook_deliveries/.test(q) && /webhook_event_filters|prediction_costs/.test(q)), [],
    'no statement of its own on the filters or the costs');
});

test.serial('a filter without completed sends its events but no result, and records no delivery', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await submit(gw, acct.liveKey, `webhook=${encodeURIComponent(receiver.url)}&webhook_events_filter=start`);
  t.is(res.statusCode, 200, res.payload);
  const id = (res.result as { request_id: string }).request_id;
  await waitFor(async () => (await gw.app.db('predictions').where({ id }).first()).status === 'completed', { what: 'the prediction to complete', timeoutMs: 30_000 });
  await waitFor(() => receiver.received.length > 0, { what: 'the start event' });
  // its delivery row would have been written with the completion: there is none
  t.is((await gw.app.db('webhook_deliveries').where({ prediction_id: id })).length, 0);
  await gw.app.queue.drain(10_000);
  t.deepEqual(verified(await secretOf(gw, acct), receiver.received).map((b) => b.event), ['start']);
});

test.serial('a sandbox prediction, finished when accepted, sends its result only; without completed, nothing', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const hook = encodeURIComponent(receiver.url);
  const withResult = await submit(gw, acct.testKey, `webhook=${hook}&webhook_events_filter=start,progress,completed`);
  t.is(withResult.statusCode, 200, withResult.payload);
  const id = (withResult.result as { request_id: string }).request_id;
  await waitFor(() => receiver.received.length === 1, { what: 'the result' });
  const without = await submit(gw, acct.testKey, `webhook=${hook}&webhook_events_filter=start`);
  t.is(without.statusCode, 200, without.payload);
  const none = (without.result as { request_id: string }).request_id;
  // a sandbox prediction is written completed with its delivery row, in one transaction
  t.is((await gw.app.db('webhook_deliveries').where({ prediction_id: none })).length, 0);
  t.is((await gw.app.db('webhook_deliveries').where({ prediction_id: id })).length, 1);
  t.is((await gw.app.db('webhook_event_filters').whereIn('prediction_id', [id, none])).length, 0);
  await gw.app.queue.drain(10_000);
  t.deepEqual(verified(await secretOf(gw, acct, acct.testKey), receiver.received).map((b) => [b.id, b.status, b.event]), [[id, 'completed', undefined]]);
});

/** A running prediction with a filter, made directly (the worker never sees it). */
async function running(events: string[], url: string): Promise<string> {
  const id = `e${String(clock).padStart(31, '0')}`.slice(0, 32);
  await gw.app.db('predictions').insert({ id, user_id: acct.userId, model: MODEL, status: 'processing', is_test: false, input: '{}', price: 0, created_at: clock, updated_at: clock, upstream_progress: 0.25 });
  await insertFilter(gw.app.db, { predictionId: id, userId: acct.userId, url, events: events as never }, clock);
  return id;
}

test.serial('progress and logs are throttled per prediction by the clock, and wait for the start; start goes once; nothing after the result began', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  clock += 60_000;
  const id = await running(['start', 'progress', 'logs', 'completed'], receiver.url);
  const update = (logs: boolean) => sendRunningEvent(gw.app, id, { kind: 'update', logs });
  // with start asked for, no update goes before it (nor takes its turn)
  t.is(await update(false), 'skipped');
  t.is(await sendRunningEvent(gw.app, id, { kind: 'start' }), 'sent');
  t.is(await sendRunningEvent(gw.app, id, { kind: 'start' }), 'skipped');
  t.is(await update(false), 'sent');
  clock += 4_999;
  t.is(await update(true), 'skipped');
  clock += 1;
  t.is(await update(true), 'sent');
  clock += 5_000;
  await closeRunningEvents(gw.app, id);
  t.is(await update(false), 'skipped');
  const bodies = verified(await secretOf(gw, acct), receiver.received);
  t.deepEqual(bodies.map((b) => b.event), ['start', 'progress', 'logs']);
  t.is(bodies[1]!.progress, 0.25);
  t.deepEqual(bodies[2]!.logs, []);
});

test.serial('the result waits for an event still being sent', async (t) => {
  // a receiver that holds its answer until the test lets it go
  let answer: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    answer = () => res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  clock += 60_000;
  const id = await running(['progress', 'completed'], `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  const order: string[] = [];
  const sending = sendRunningEvent(gw.app, id, { kind: 'update', logs: false }).then((r) => order.push(`event ${r}`));
  await waitFor(() => answer !== undefined, { what: 'the event to reach the receiver' });
  const closing = closeRunningEvents(gw.app, id).then(() => order.push('result may go'));
  // the close has been written once the row says so; the event is still held by the receiver
  await waitFor(async () => Boolean(Number((await gw.app.db('webhook_event_filters').where({ prediction_id: id }).first()).closed)), { what: 'the row closed' });
  answer!();
  await Promise.all([sending, closing]);
  t.deepEqual(order, ['event sent', 'result may go']);
});

test.serial('an upstream job (Replicate, nocked) sends its polls\' progress and logs as events, none after the result', async (t) => {
  const REPLICATE = 'https://api.replicate.test';
  const PNG = readFileSync(new URL('../../workers/sandbox/sample.png', import.meta.url));
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  t.teardown(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  // every update is an event here (interval 0): the ones still being sent when the job ends are what the result must wait for
  const up = await startGateway({
    db: 'sqlite', queue: 'memory', worker: true,
    env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_EVENTS_INTERVAL_MS: '0', UPSTREAM_REPLICATE_URL: `${REPLICATE}/v1`, UPSTREAM_REPLICATE_KEY: 'r8_test', UPSTREAM_POLL_DELAYS_MS: '20', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' },
  });
  t.teardown(() => up.stop());
  const owner = await account(up);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  // The job runs at least STEPS polls, each adding a progress-bar line, and ends only once a logs
  // event has reached the receiver: an event is fire-and-forget and reads the row when it goes,
  // so one that goes after the job ended upstream has no progress left to show (the row's
  // progress ends with the job), and one held back by the start's lease for all STEPS polls would
  // leave none at all. `endedAt`: how many bodies had arrived when the job answered succeeded.
  const STEPS = 8;
  const TOTAL = 50;
  let polls = 0;
  let endedAt: number | undefined;
  const isLogsEvent = (r: Received) => JSON.parse(r.body).event === 'logs';
  const logs = (n: number) => Array.from({ length: n }, (_, i) => `${Math.round(((i + 1) / TOTAL) * 100)}%|#     | ${i + 1}/${TOTAL} [00:01<00:01]`).join('\n');
  const job = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'rep-events-1', status, input: {}, output: null, error: null, logs: logs(Math.min(polls, TOTAL)), ...extra });
  nock(REPLICATE).persist()
    .post('/v1/models/black-forest-labs/flux-dev/predictions').reply(201, job('starting'))
    .get('/v1/predictions/rep-events-1').reply(() => {
      polls++;
      if (endedAt === undefined && polls > STEPS && receiver.received.some(isLogsEvent)) endedAt = receiver.received.length;
      return [200, endedAt === undefined ? job('processing') : job('succeeded', { output: ['https://replicate.delivery.test/r/0.png'], metrics: { predict_time: 0.5 } })];
    });
  nock('https://replicate.delivery.test').persist().get('/r/0.png').reply(200, PNG, { 'content-type': 'image/png' });

  const res = await up.server.inject({
    method: 'POST', url: `/api/v1/lumen-dev-text-to-image?webhook=${encodeURIComponent(receiver.url)}&webhook_events_filter=start,progress,logs,completed`,
    headers: { 'x-api-key': owner.liveKey }, payload: { prompt: 'a fox', num_images: 1 },
  });
  t.is(res.statusCode, 200, res.payload);
  await waitFor(() => receiver.received.some((r) => isResult(JSON.parse(r.body))), { what: 'the result (the job ends once a logs event has arrived)', timeoutMs: 30_000 });
  await up.app.queue.drain(10_000);
  const bodies = verified(await secretOf(up, owner), receiver.received);
  const kinds = bodies.map((b) => String(b.event ?? b.status));
  t.is(kinds.at(-1), 'completed', kinds.join(' '));
  t.is(kinds.filter((k) => k === 'completed').length, 1);
  t.true(kinds.includes('start'), kinds.join(' '));
  const updates = bodies.filter((b) => b.event === 'logs');
  t.true(updates.length >= 1, kinds.join(' '));
  for (const update of updates) {
    t.is(update.status, 'processing');
    t.true((update.logs as unknown[]).length >= 1);
  }
  // each event read while the job ran carries its log lines and the progress Replicate's last bar states
  const whileRunning = bodies.slice(0, endedAt).filter((b) => b.event === 'logs');
  t.true(whileRunning.length >= 1, kinds.join(' '));
  for (const update of whileRunning) {
    const lines = update.logs as Array<{ message: string }>;
    const bar = /^(\d+)%\|#\s+\| (\d+)\/50 /.exec(lines.at(-1)!.message);
    t.truthy(bar, lines.at(-1)!.message);
    t.is(Number(bar![2]), lines.length);
    t.is(update.progress, Number(bar![1]) / 100);
  }
});
