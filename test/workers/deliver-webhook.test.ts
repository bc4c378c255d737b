// Webhook delivery through the real worker, RabbitMQ and MariaDB, to real local receivers.
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { waitFor, waitingMessages } from '../helpers/services.ts';
import { topics } from '../../app.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { startReceiver } from '../helpers/receiver.ts';
import type { Receiver } from '../helpers/receiver.ts';

const BACKOFF = 100;
let gw: TestGateway;
let acct: Account;

test.before(async () => {
  gw = await startGateway({ worker: true, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: `${BACKOFF},${BACKOFF * 5},${BACKOFF * 21}`, WEBHOOK_TIMEOUT_MS: '500' } });
  acct = await newAccount(gw, 100_000);
});
test.after.always(async () => {
  await gw?.stop();
});

async function submit(receiver: Receiver, key = acct.testKey, model = 'canvas-v1-fast-text-to-image', payload: object = { prompt: 'hook', width: 64, height: 64 }) {
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${model}?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': key }, payload });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return (res.result as { request_id: string }).request_id;
}

async function deliveryOf(id: string, until: (d: { status: string; attempts: number }) => boolean) {
  return waitFor(async () => {
    const res = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { 'x-api-key': acct.liveKey } });
    const d = (res.result as { webhook_deliveries: Array<{ id: string; status: string; attempts: number; attempt_log: Array<{ status_code: number | null; error: string | null }> }> }).webhook_deliveries[0];
    return d && until(d) ? d : undefined;
  }, { what: 'the webhook delivery', timeoutMs: 20_000 });
}

/**
 * Resolves once no webhook attempt is running or waiting on the broker (in the work queue or a
 * delay queue): from then on, no attempt that is not asked for again can reach a receiver.
 */
async function noAttemptPending(): Promise<void> {
  const webhooks = topics(gw.app.config).find((x) => x.name === 'webhooks')!;
  const running = await gw.app.queue.drain(10_000);
  if (running > 0) throw new Error(`${running} handlers still running`);
  await waitFor(async () => (await waitingMessages(gw.app.config.amqpPrefix, webhooks)) === 0, { what: 'no webhook message left on the broker' });
}

/** The secret `key` reads: a sandbox key's (submit's default), the one that signs sandbox predictions' deliveries. */
async function secret(key = acct.testKey): Promise<string> {
  const res = await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { 'x-api-key': key } });
  return (res.result as { secret: string }).secret;
}

test.serial('a sandbox prediction is delivered with exactly the 2.2 fields, verifiable with standardwebhooks', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const r = receiver.received[0]!;
  const payload = new Webhook(await secret()).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
  t.deepEqual(Object.keys(payload).sort(), ['created_at', 'executionTime', 'has_nsfw_contents', 'id', 'outputs', 'status', 'timings', 'urls']);
  t.is(payload.id, id);
  t.is(payload.status, 'completed');
  t.deepEqual(payload.urls, { get: `http://gateway.test/api/v1/predictions/${id}/result` });
  t.deepEqual(payload.has_nsfw_contents, [false]);
  t.is((payload.outputs as string[]).length, 1);
  t.is(typeof payload.executionTime, 'string');
  t.true('inference' in (payload.timings as object));
  t.regex(String(r.headers['webhook-id']), /^msg_/);
  const d = await deliveryOf(id, (x) => x.status === 'delivered');
  t.is(d.attempts, 1);
  t.is(d.id, String(r.headers['webhook-id']));
});

test.serial('a production prediction is delivered after it completes', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const id = await submit(receiver, acct.liveKey);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const payload = JSON.parse(receiver.received[0]!.body) as { id: string; status: string; outputs: string[] };
  t.is(payload.id, id);
  t.is(payload.status, 'completed');
  t.true(payload.outputs[0]!.startsWith(`http://gateway.test/files/outputs/${id}/`));
});

test.serial('a receiver that fails twice then succeeds gets three attempts with one webhook-id and one success recorded', async (t) => {
  const receiver = await startReceiver((n) => ({ status: n <= 2 ? 500 : 204 }));
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  const d = await deliveryOf(id, (x) => x.status === 'delivered');
  t.is(receiver.received.length, 3);
  t.is(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1);
  t.is(d.attempts, 3);
  t.deepEqual(d.attempt_log.map((a) => a.status_code), [500, 500, 204]);
  const s = await secret();
  for (const r of receiver.received) t.notThrows(() => new Webhook(s).verify(r.body, r.headers as Record<string, string>));
});

test.serial('a receiver that always fails gets four attempts on the retry schedule, then the delivery is dead-lettered', async (t) => {
  const receiver = await startReceiver(() => ({ status: 502 }));
  t.teardown(() => receiver.close());
  const deadBefore = await gw.app.queue.deadLetterCount('webhooks');
  const id = await submit(receiver);
  const d = await deliveryOf(id, (x) => x.status === 'dead');
  t.is(receiver.received.length, 4);
  t.is(d.attempts, 4);
  const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i]!.at);
  // retries 100, 500 and 2100 ms after the first failure: waits of 100, 400, 1600 ms, each -20% at
  // least (scheduling only adds; the exact schedule and jitter bounds are unit-tested in backoff.test.ts
  // and with a fixed clock in retry-schedule.test.ts): the third gap is past what a 400 ms step could wait.
  [BACKOFF, BACKOFF * 4, BACKOFF * 16].forEach((base, i) => {
    t.true(gaps[i]! >= base * 0.8 - 5, `gap ${i}: ${gaps[i]} ms for a ${base} ms step`);
  });
  await waitFor(async () => (await gw.app.queue.deadLetterCount('webhooks')) === deadBefore + 1, { what: 'the dead-letter queue' });
  await noAttemptPending();
  t.is(receiver.received.length, 4);

  // Redelivery: a new round with the same webhook-id.
  receiver.respond = () => ({ status: 200 });
  const res = await gw.server.inject({ method: 'POST', url: `/app/webhook_deliveries/${d.id}/redeliver`, headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 202);
  const again = await deliveryOf(id, (x) => x.status === 'delivered');
  t.is(again.attempts, 5);
  t.is(receiver.received.length, 5);
  t.is(receiver.received[4]!.headers['webhook-id'], d.id);
  const twice = await gw.server.inject({ method: 'POST', url: `/app/webhook_deliveries/${d.id}/redeliver`, headers: { 'x-api-key': acct.liveKey } });
  t.is(twice.statusCode, 409);
});

test.serial('a receiver that hangs is timed out and retried', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  const d = await deliveryOf(id, (x) => x.status === 'delivered');
  t.is(d.attempts, 2);
  t.regex(String(d.attempt_log[0]!.error), /timed out after 500 ms/);
});

test.serial('a redirect is a failed attempt, not followed; the first bytes of each answer are kept as its excerpt', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } } : { status: 200 }));
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  const d = await deliveryOf(id, (x) => x.status === 'delivered');
  t.is(receiver.received.length, 2);
  t.deepEqual(d.attempt_log.map((a) => a.status_code), [302, 200]);
  const res = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { 'x-api-key': acct.liveKey } });
  const log = (res.result as { webhook_deliveries: Array<{ attempt_log: Array<{ response_excerpt: string | null }> }> }).webhook_deliveries[0]!.attempt_log;
  t.deepEqual(log.map((a) => a.response_excerpt), ['receiver says hello', 'receiver says hello']);
});

test.serial('410 Gone stops retrying at once', async (t) => {
  const receiver = await startReceiver(() => ({ status: 410 }));
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  const d = await deliveryOf(id, (x) => x.status === 'gone');
  await noAttemptPending();
  t.is(receiver.received.length, 1);
  t.is(d.attempts, 1);
});

test.serial('429 with Retry-After is honoured', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
  t.teardown(() => receiver.close());
  const id = await submit(receiver);
  await deliveryOf(id, (x) => x.status === 'delivered');
  t.true(receiver.received[1]!.at - receiver.received[0]!.at >= 950, `waited ${receiver.received[1]!.at - receiver.received[0]!.at} ms`);
});

test.serial('after a rotation deliveries carry both signatures, and either secret verifies', async (t) => {
  const before = await secret();
  const rotated = await gw.server.inject({ method: 'POST', url: '/app/webhook_secret/rotate', headers: { 'x-api-key': acct.testKey } });
  const after = (rotated.result as { secret: string; previous: unknown[] });
  t.not(after.secret, before);
  t.regex(after.secret, /^whsec_/);
  t.is(after.previous.length, 1);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  await submit(receiver);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const r = receiver.received[0]!;
  t.is(String(r.headers['webhook-signature']).split(' ').length, 2);
  t.notThrows(() => new Webhook(before).verify(r.body, r.headers as Record<string, string>));
  t.notThrows(() => new Webhook(after.secret).verify(r.body, r.headers as Record<string, string>));
  // Secrets are sealed at rest.
  const rows = await gw.app.db('webhook_secrets').where({ user_id: acct.userId });
  t.false(JSON.stringify(rows).includes(after.secret.slice(6)));
});

test.serial('however often the secret is rotated, a delivery carries at most two signatures: the current and the one before', async (t) => {
  const a = await newAccount(gw, 0);
  const secrets: string[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await gw.server.inject({ method: 'POST', url: '/app/webhook_secret/rotate', headers: { 'x-api-key': a.testKey } });
    t.is(res.statusCode, 200);
    const body = res.result as { secret: string; previous: unknown[] };
    t.true(body.previous.length <= 1);
    secrets.push(body.secret);
  }
  t.is((await gw.app.db('webhook_secrets').where({ user_id: a.userId, is_test: true })).length, 2);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const res = await gw.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(receiver.url)}`, headers: { 'x-api-key': a.testKey }, payload: { prompt: 'hook', width: 64, height: 64 } });
  t.is(res.statusCode, 200);
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const r = receiver.received[0]!;
  const headers = r.headers as Record<string, string>;
  t.is(String(r.headers['webhook-signature']).split(' ').length, 2);
  t.notThrows(() => new Webhook(secrets.at(-1)!).verify(r.body, headers));
  // the previous secret still verifies until the next rotation ...
  t.notThrows(() => new Webhook(secrets.at(-2)!).verify(r.body, headers));
  // ... and the one before it no longer does
  t.throws(() => new Webhook(secrets.at(-3)!).verify(r.body, headers));
});

test.serial('only completed and failed predictions are delivered: a cancelled one is not', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { newPredictionId } = await import('../../db/predictions/record.ts');
  const id = newPredictionId(Date.now());
  await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: 'x' }, price: 5, webhookUrl: receiver.url }, now: Date.now() });
  const res = await gw.server.inject({ method: 'POST', url: `/app/cancel_prediction/${id}`, headers: { 'x-api-key': acct.liveKey } });
  t.is(res.statusCode, 200);
  // The worker gets the prediction's message late (as the sweeper would publish it) and settles it:
  // the one path by which a finished prediction gets a delivery has run.
  t.deepEqual(await createRunModel(gw.app).handle({ body: { id }, attempt: 0, redelivered: false }), { kind: 'ack' });
  t.is((await gw.app.db('predictions').where({ id }).first()).status, 'cancelled');
  t.is((await gw.app.db('webhook_deliveries').where({ prediction_id: id })).length, 0);
  await noAttemptPending();
  t.is(receiver.received.length, 0);
});

test.serial('webhook URLs are checked at submit time', async (t) => {
  const strict = await startGateway({ queue: 'memory' });
  t.teardown(() => strict.stop());
  const a = await newAccount(strict, 0);
  for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://[::ffff:10.0.0.1]/x', 'https://169.254.169.254/x', 'https://u:p@hooks.example.com/x']) {
    const res = await strict.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent(url)}`, headers: { 'x-api-key': a.testKey }, payload: { prompt: 'x' } });
    t.is(res.statusCode, 422, url);
    t.deepEqual((res.result as { detail: Array<{ loc: string[] }> }).detail[0]!.loc, ['query', 'webhook']);
  }
  const ok = await strict.server.inject({ method: 'POST', url: `/api/v1/canvas-v1-fast-text-to-image?webhook=${encodeURIComponent('https://hooks.example.com/x')}`, headers: { 'x-api-key': a.testKey }, payload: { prompt: 'x' } });
  t.is(ok.statusCode, 200);
});

test.serial('a test event is sent at once, signed with the current secret, and its answer comes back; a bad URL is 422', async (t) => {
  const receiver = await startReceiver((n) => ({ status: n === 1 ? 204 : 500 }));
  t.teardown(() => receiver.close());
  const send = (url: string, key = acct.liveKey) => gw.server.inject({ method: 'POST', url: '/app/webhook_test', headers: { 'x-api-key': key }, payload: { url } });
  const ok = await send(receiver.url);
  t.is(ok.statusCode, 200, ok.payload);
  const answer = ok.result as { webhook_id: string; delivered: boolean; status_code: number | null; error: string | null; duration_ms: number };
  t.like(answer, { delivered: true, status_code: 204, error: null });
  t.true(Number.isInteger(answer.duration_ms));
  t.is(receiver.received.length, 1);
  const r = receiver.received[0]!;
  t.is(r.headers['webhook-id'], answer.webhook_id);
  const event = new Webhook(await secret(acct.liveKey)).verify(r.body, r.headers as Record<string, string>) as { type: string; id: string };
  t.is(event.type, 'webhook.test');
  t.is(event.id, answer.webhook_id);
  // a failing receiver: said, not retried
  const failed = await send(receiver.url);
  t.like(failed.result as object, { delivered: false, status_code: 500, error: null });
  const closed = await send('http://127.0.0.1:1/hook');
  t.like(closed.result as object, { delivered: false, status_code: null });
  t.regex(String((closed.result as { error: string }).error), /ECONNREFUSED/);
  t.is(receiver.received.length, 2);
  const bad = await send('ftp://example.com/hook');
  t.is(bad.statusCode, 422);
  t.deepEqual((bad.result as { detail: Array<{ loc: string[] }> }).detail[0]!.loc, ['body', 'url']);
});

test.serial('test events are limited to 10 a minute per account: past that, 429 with Retry-After, and nothing is sent', async (t) => {
  const receiver = await startReceiver(() => ({ status: 204 }));
  t.teardown(() => receiver.close());
  const a = await newAccount(gw, 0);
  // two minute windows admit at most 20, whatever second this starts at
  const statuses: number[] = [];
  let refused;
  for (let i = 0; i < 21 && !refused; i++) {
    const res = await gw.server.inject({ method: 'POST', url: '/app/webhook_test', headers: { 'x-api-key': a.liveKey }, payload: { url: receiver.url } });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) refused = res;
  }
  t.truthy(refused, statuses.join(','));
  t.regex(refused!.headers['retry-after'] as string, /^\d+$/);
  t.regex(JSON.parse(refused!.payload).detail, /at most 10 test events a minute/);
  t.is(receiver.received.length, statuses.filter((s) => s === 200).length, 'a refused test event sends nothing');
});

test.serial('the delivery log lists the account\'s deliveries newest first with their attempts, by status, a page at a time', async (t) => {
  const receiver = await startReceiver(() => ({ status: 410 }));
  t.teardown(() => receiver.close());
  const goneId = await submit(receiver, acct.liveKey);
  await deliveryOf(goneId, (x) => x.status === 'gone');
  type Entry = { id: string; prediction_id: string; status: string; attempts: number; created_at: string; attempt_log: Array<{ status_code: number | null }> };
  const list = async (query: string, key = acct.liveKey) => {
    const res = await gw.server.inject({ method: 'GET', url: `/app/webhook_deliveries${query}`, headers: { 'x-api-key': key } });
    t.is(res.statusCode, 200, res.payload);
    return res.result as { items: Entry[]; next_before: string | null };
  };
  const all = await list('');
  t.true(all.items.length >= 5, `${all.items.length} deliveries`);
  t.is(all.items[0]!.prediction_id, goneId, 'newest first');
  t.like(all.items[0], { status: 'gone', attempts: 1 });
  t.deepEqual(all.items[0]!.attempt_log.map((a) => a.status_code), [410]);
  const times = all.items.map((d) => Date.parse(d.created_at));
  t.deepEqual(times, [...times].sort((a, b) => b - a));
  // by status
  const gone = await list('?status=gone');
  t.true(gone.items.length >= 2);
  t.true(gone.items.every((d) => d.status === 'gone'));
  // a page at a time: the next page starts after the last one shown
  const first = await list('?limit=2');
  t.is(first.items.length, 2);
  // the last one's time and id (test/handlers/alert-webhooks.test.ts pages through rows of one millisecond)
  t.is(first.next_before, `${first.items[1]!.created_at}~${first.items[1]!.id}`);
  const second = await list(`?limit=2&before=${encodeURIComponent(first.next_before!)}`);
  t.true(second.items.every((d) => Date.parse(d.created_at) <= Date.parse(first.items[1]!.created_at)));
  t.false(second.items.some((d) => first.items.some((f) => f.id === d.id)));
  // a sandbox key sees only sandbox predictions' deliveries: not the production one above
  const sandbox = await list('', acct.testKey);
  t.false(sandbox.items.some((d) => d.prediction_id === goneId));
  t.true(sandbox.items.length > 0);
  // another account sees none of them
  const other = await newAccount(gw, 0);
  t.deepEqual((await list('', other.liveKey)).items, []);
  // a bad filter is a 422
  const bad = await gw.server.inject({ method: 'GET', url: '/app/webhook_deliveries?status=lost', headers: { 'x-api-key': acct.liveKey } });
  t.is(bad.statusCode, 422);
});

test.serial('two redeliver_dead calls at once schedule each dead delivery once: one call names it, and the receiver gets it once', async (t) => {
  const receiver = await startReceiver(() => ({ status: 502 }));
  t.teardown(() => receiver.close());
  const since = new Date(Date.now() - 1).toISOString();
  const ids = await Promise.all([submit(receiver), submit(receiver), submit(receiver)]);
  const dead = await Promise.all(ids.map((id) => deliveryOf(id, (x) => x.status === 'dead')));
  await noAttemptPending();
  receiver.respond = () => ({ status: 200 });
  const before = receiver.received.length;
  const call = () => gw.server.inject({ method: 'POST', url: '/app/webhook_deliveries/redeliver_dead', headers: { 'x-api-key': acct.liveKey }, payload: { since } });
  const answers = (await Promise.all([call(), call()])).map((res) => {
    t.is(res.statusCode, 202, res.payload);
    return res.result as { count: number; ids: string[] };
  });
  const named = answers.flatMap((a) => a.ids);
  t.deepEqual([...named].sort(), dead.map((d) => d.id).sort(), 'each dead delivery is named by one call only');
  t.is(answers[0]!.count + answers[1]!.count, dead.length);
  await Promise.all(ids.map((id) => deliveryOf(id, (x) => x.status === 'delivered')));
  await noAttemptPending();
  t.is(receiver.received.length, before + dead.length, 'each is sent once');
});

test.serial('every dead delivery since a time is sent again in one call; older ones and other accounts\' are left alone', async (t) => {
  const receiver = await startReceiver(() => ({ status: 502 }));
  t.teardown(() => receiver.close());
  const since = new Date(Date.now() - 1).toISOString();
  const ids = await Promise.all([submit(receiver), submit(receiver)]);
  const dead = await Promise.all(ids.map((id) => deliveryOf(id, (x) => x.status === 'dead')));
  await noAttemptPending();
  receiver.respond = () => ({ status: 200 });
  const before = receiver.received.length;
  const other = await newAccount(gw, 0);
  const call = (key: string, body: object) => gw.server.inject({ method: 'POST', url: '/app/webhook_deliveries/redeliver_dead', headers: { 'x-api-key': key }, payload: body });
  const foreign = await call(other.liveKey, { since });
  t.is(foreign.statusCode, 202);
  t.like(foreign.result as object, { count: 0, ids: [], more: false });
  const res = await call(acct.liveKey, { since });
  t.is(res.statusCode, 202, res.payload);
  const answer = res.result as { count: number; ids: string[]; more: boolean };
  t.is(answer.count, 2);
  t.deepEqual([...answer.ids].sort(), dead.map((d) => d.id).sort());
  t.false(answer.more);
  await Promise.all(ids.map((id) => deliveryOf(id, (x) => x.status === 'delivered')));
  t.is(receiver.received.length, before + 2);
  // nothing dead is left since then
  t.like((await call(acct.liveKey, { since })).result as object, { count: 0 });
  t.is((await call(acct.liveKey, { since: 'yesterday' })).statusCode, 422);
});
