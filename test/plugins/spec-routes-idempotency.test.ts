// Idempotency-Key on model submits, and the submit answer, on MariaDB and RabbitMQ (no worker:
// predictions stay unfinished, so every held credit is visible). A retried submit runs and
// charges once, concurrent duplicates included; another request under a used key is 409; a key
// whose request died is taken over once it is older than the bound (test/helpers/idempotency-takeover.ts).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import pino from 'pino';
import { createApp } from '../../app.ts';
import { createServer } from '../../server.ts';
import { loadConfig } from '../../config.ts';
import { deleteExpiredIdempotencyKeys } from '../../db/idempotency.ts';
import { takeoverTests } from '../helpers/idempotency-takeover.ts';

let gw: TestGateway;
let now = Date.now();
test.before(async () => {
  gw = await startGateway({ clock: () => now });
});
test.after.always(async () => {
  await gw?.stop();
});

const MODEL = '/api/v1/canvas-v1-fast-text-to-image';
// base 2 + 3 per image
const PRICE_2_IMAGES = 8;

function submit(key: string, payload: Record<string, unknown>, idempotencyKey?: string) {
  return gw.server.inject({
    method: 'POST', url: MODEL, payload,
    headers: { 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
  });
}

async function wallet(acct: Account) {
  const row = await gw.app.db('users').where({ id: acct.userId }).first<{ balance: number | string; held: number | string }>();
  return { balance: Number(row.balance), held: Number(row.held) };
}

const predictions = async (acct: Account) => (await gw.app.db('predictions').where({ user_id: acct.userId }).count<{ n: number }[]>({ n: '*' }))[0]!.n;

test('the submit answer has the id, the state, where to poll and cancel, and the price; headers give cost and balance', async (t) => {
  const acct = await newAccount(gw, 1000);
  const res = await submit(acct.liveKey, { prompt: 'answer', num_images: 2 });
  t.is(res.statusCode, 200, res.payload);
  const body = res.result as { request_id: string; status: string; urls: { get: string; cancel: string }; price: number };
  t.regex(body.request_id, /^[0-9a-f]{32}$/);
  t.is(body.status, 'queued');
  t.is(body.price, PRICE_2_IMAGES);
  t.is(body.urls.get, `http://gateway.test/api/v1/predictions/${body.request_id}/result`);
  t.is(body.urls.cancel, `http://gateway.test/app/cancel_prediction/${body.request_id}`);
  t.is(res.headers['x-cost'], String(PRICE_2_IMAGES));
  t.is(res.headers['x-balance-remaining'], String(1000 - PRICE_2_IMAGES));
  t.is(res.headers['idempotent-replayed'], undefined);
  // the URLs work as given
  const get = await gw.server.inject({ method: 'GET', url: body.urls.get.replace('http://gateway.test', ''), headers: { 'x-api-key': acct.liveKey } });
  t.is(get.statusCode, 200);
  const cancel = await gw.server.inject({ method: 'POST', url: body.urls.cancel.replace('http://gateway.test', ''), headers: { 'x-api-key': acct.liveKey } });
  t.is(cancel.statusCode, 200, cancel.payload);
});

test('a sandbox submit answers completed, price 0, and leaves the balance alone', async (t) => {
  const acct = await newAccount(gw, 50);
  const res = await submit(acct.testKey, { prompt: 'sandbox' });
  t.is(res.statusCode, 200, res.payload);
  const body = res.result as { status: string; price: number };
  t.is(body.status, 'completed');
  t.is(body.price, 0);
  t.is(res.headers['x-cost'], '0');
  t.is(res.headers['x-balance-remaining'], '50');
});

test('a retry with the same key and body gets the first answer and is charged once', async (t) => {
  const acct = await newAccount(gw, 1000);
  const first = await submit(acct.liveKey, { prompt: 'retry me', num_images: 2 }, 'key-1');
  t.is(first.statusCode, 200, first.payload);
  // the same body in another key order is the same request
  const again = await submit(acct.liveKey, { num_images: 2, prompt: 'retry me' }, 'key-1');
  t.is(again.statusCode, 200, again.payload);
  t.deepEqual(again.result, first.result);
  t.is(again.headers['idempotent-replayed'], 'true');
  t.is(again.headers['x-cost'], first.headers['x-cost']);
  t.is(again.headers['x-balance-remaining'], first.headers['x-balance-remaining']);
  t.is(await predictions(acct), 1);
  t.deepEqual(await wallet(acct), { balance: 1000 - PRICE_2_IMAGES, held: PRICE_2_IMAGES });
});

test('concurrent submits with one key create one prediction and all get its answer', async (t) => {
  const acct = await newAccount(gw, 1000);
  const answers = await Promise.all(Array.from({ length: 6 }, () => submit(acct.liveKey, { prompt: 'race', num_images: 2 }, 'race-key')));
  for (const a of answers) t.is(a.statusCode, 200, a.payload);
  const ids = new Set(answers.map((a) => (a.result as { request_id: string }).request_id));
  t.is(ids.size, 1);
  t.is(answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length, 5);
  t.is(await predictions(acct), 1);
  t.deepEqual(await wallet(acct), { balance: 1000 - PRICE_2_IMAGES, held: PRICE_2_IMAGES });
});

test('two API processes on one database, racing with one key, create one prediction', async (t) => {
  // a second app with its own connection pool and hapi server, as another API process would have
  const app2 = await createApp(loadConfig(gw.env), { log: pino({ level: 'silent' }), clock: () => now });
  const server2 = await createServer(app2);
  await server2.initialize();
  try {
    const acct = await newAccount(gw, 1000);
    const send = (server: typeof gw.server) => server.inject({
      method: 'POST', url: MODEL, payload: { prompt: 'two processes', num_images: 2 }, headers: { 'x-api-key': acct.liveKey, 'idempotency-key': 'cross-process' },
    });
    const answers = await Promise.all([send(gw.server), send(server2), send(gw.server), send(server2)]);
    for (const a of answers) t.is(a.statusCode, 200, a.payload);
    t.is(new Set(answers.map((a) => (a.result as { request_id: string }).request_id)).size, 1);
    t.is(await predictions(acct), 1);
    t.deepEqual(await wallet(acct), { balance: 1000 - PRICE_2_IMAGES, held: PRICE_2_IMAGES });
  } finally {
    await server2.stop();
    await app2.close();
  }
});

test('another body under a used key is 409 with a clear detail, and runs nothing', async (t) => {
  const acct = await newAccount(gw, 1000);
  t.is((await submit(acct.liveKey, { prompt: 'first' }, 'reused')).statusCode, 200);
  const other = await submit(acct.liveKey, { prompt: 'second' }, 'reused');
  t.is(other.statusCode, 409);
  t.is((other.result as { code: string }).code, 'conflict');
  t.regex((other.result as { detail: string }).detail, /Idempotency-Key was already used with a different request/);
  const otherModel = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-budget-text-to-image', headers: { 'x-api-key': acct.liveKey, 'idempotency-key': 'reused' }, payload: { prompt: 'first' } });
  t.is(otherModel.statusCode, 409, 'the same body on another model is another request');
  t.is(await predictions(acct), 1);
});

test('keys belong to their owner and mode: another account, or a sandbox key, with the same key runs its own request', async (t) => {
  const a = await newAccount(gw, 1000);
  const b = await newAccount(gw, 1000);
  const ra = await submit(a.liveKey, { prompt: 'shared' }, 'shared-key');
  const rb = await submit(b.liveKey, { prompt: 'shared' }, 'shared-key');
  const rs = await submit(a.testKey, { prompt: 'shared' }, 'shared-key');
  for (const r of [ra, rb, rs]) t.is(r.statusCode, 200, r.payload);
  const ids = new Set([ra, rb, rs].map((r) => (r.result as { request_id: string }).request_id));
  t.is(ids.size, 3);
  t.is((rs.result as { status: string }).status, 'completed');
});

test('a malformed key is 400; 255 characters is the limit', async (t) => {
  const acct = await newAccount(gw, 1000);
  for (const bad of ['k'.repeat(256), 'tab\there', 'ünïcode']) {
    const res = await submit(acct.liveKey, { prompt: 'x' }, bad);
    t.is(res.statusCode, 400, bad);
    t.is((res.result as { code: string }).code, 'invalid_input');
    t.regex((res.result as { detail: string }).detail, /Idempotency-Key must be 1-255 printable ASCII characters/);
  }
  t.is(await predictions(acct), 0);
  t.is((await submit(acct.liveKey, { prompt: 'x' }, 'k'.repeat(255))).statusCode, 200);
  const stored = await gw.app.db('idempotency_keys').where({ user_id: acct.userId });
  t.is(stored.length, 1);
  t.regex(stored[0].key_hash, /^[0-9a-f]{64}$/);
  t.false(JSON.stringify(stored[0]).includes('k'.repeat(255)), 'the key is stored only as a hash');
  t.false(JSON.stringify(stored[0]).includes(acct.liveKey));
});

test('a failed request frees its key: the retry after a top-up runs', async (t) => {
  const acct = await newAccount(gw, 1);
  const poor = await submit(acct.liveKey, { prompt: 'costly', num_images: 2 }, 'after-topup');
  t.is(poor.statusCode, 402);
  await gw.app.db('users').where({ id: acct.userId }).update({ balance: 100 });
  const rich = await submit(acct.liveKey, { prompt: 'costly', num_images: 2 }, 'after-topup');
  t.is(rich.statusCode, 200, rich.payload);
  t.is(rich.headers['idempotent-replayed'], undefined);
  t.is(await predictions(acct), 1);
});

test.serial('without a key every submit is a new request; after 24 hours a key may be used again', async (t) => {
  const acct = await newAccount(gw, 1000);
  t.not((await submit(acct.liveKey, { prompt: 'p' })).result, undefined);
  t.is((await submit(acct.liveKey, { prompt: 'p' })).statusCode, 200);
  t.is(await predictions(acct), 2);
  const first = await submit(acct.liveKey, { prompt: 'p' }, 'day-key');
  now += 24 * 3600 * 1000 + 1;
  try {
    const later = await submit(acct.liveKey, { prompt: 'p' }, 'day-key');
    t.is(later.statusCode, 200, later.payload);
    t.not((later.result as { request_id: string }).request_id, (first.result as { request_id: string }).request_id);
    t.is(await predictions(acct), 4);
    // expired records are what a retention job removes; live ones stay
    const before = await gw.app.db('idempotency_keys').where({ user_id: acct.userId }).count<{ n: number }[]>({ n: '*' });
    t.is(Number(before[0]!.n), 1, 'the expired record was replaced on reuse');
    t.is(await deleteExpiredIdempotencyKeys(gw.app.db, now + 24 * 3600 * 1000 + 1, 1000) >= 1, true);
    t.is((await gw.app.db('idempotency_keys').where({ user_id: acct.userId })).length, 0);
  } finally {
    now -= 24 * 3600 * 1000 + 1;
  }
});

test('submit answers, replays, 400 and 409 match the spec', async (t) => {
  const acct = await newAccount(gw, 1000);
  const op = 'canvas-v1-fast-text-to-image';
  const call = (body: Record<string, unknown>, key: string) => callOperation(gw, op, { as: acct.liveKey, body, headers: { 'idempotency-key': key } });
  t.is((await call({ prompt: 'spec' }, 'spec-key')).status, 200);
  t.is((await call({ prompt: 'spec' }, 'spec-key')).status, 200);
  t.is((await call({ prompt: 'other' }, 'spec-key')).status, 409);
  t.is((await call({ prompt: 'spec' }, 'x'.repeat(300))).status, 400);
  t.is((await callOperation(gw, op, { as: acct.testKey, body: { prompt: 'spec' } })).status, 200);
});

takeoverTests(test, () => gw);
