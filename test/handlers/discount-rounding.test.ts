// A discount's rounding (docs/operating/administration.md "Discounts"): the discounted price is
// rounded down, but a discount below 100 % never takes a price of at least 1 credit below 1
// credit; only 100 % off makes a call free. Through every way a discount is applied: the quote,
// an asynchronous call's hold and charge (a per-call price, a per-token one completed by the
// worker), and POST /v1/chat/completions' hold and settle. The language model's provider is a
// local server speaking OpenAI's API (test/helpers/openai-upstream.ts). The ledger is checked
// after every test.
import test from 'ava';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { callOperation } from '../helpers/operation.ts';
import { startFakeOpenAI, USAGE } from '../helpers/openai-upstream.ts';
import type { FakeOpenAI } from '../helpers/openai-upstream.ts';
import { upsertDiscounts } from '../../db/discounts.ts';

let gw: TestGateway;
let fake: FakeOpenAI;

test.before(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway({ queue: 'memory', worker: true, env: { UPSTREAM_OPENAI_URL: fake.url, UPSTREAM_OPENAI_KEY: 'sk-provider-rounding', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
});
test.after.always(async () => {
  await gw?.stop();
  await fake?.close();
});
ledgerCheckedAfterEach(test, () => gw?.app.db);

const CANVAS = 'canvas-v1-fast-text-to-image';
/** base 2 + 3 x num_images: 5 credits for one image */
const ONE_IMAGE = { prompt: 'p', width: 64, height: 64, num_images: 1 };
const CHAT = 'lexi-v1-balanced-chat';
/** lexi-v1's token price: 225 credits per million input tokens, 900 per million output tokens */
const chargeOf = (input: number, output: number) => Math.ceil((input * 225 + output * 900) / 1_000_000);

/** An account whose wallet has `percentOff` off `model`, set before its key is first used. */
async function discounted(model: string, percentOff: number): Promise<Account> {
  const acct = await newAccount(gw, 1_000);
  await upsertDiscounts(gw.app.db, [{ owner: { userId: acct.userId, teamId: null }, model, percentOff, expiresAt: null, reason: null, createdBy: acct.userId }], Date.now());
  return acct;
}

async function wallet(userId: number) {
  const row = await gw.app.db('users').where({ id: userId }).first();
  return { balance: Number(row.balance), held: Number(row.held) };
}

async function charges(id: string) {
  const rows = await gw.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id');
  return rows.map((r: Record<string, unknown>) => [r.kind, Number(r.amount), Number(r.held_change)]);
}

async function completed(id: string) {
  return waitFor(async () => {
    const row = await gw.app.db('predictions').where({ id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
}

test('a per-call price of 5 credits at 90 % off costs 1 credit (quote, hold and charge), not nothing', async (t) => {
  const acct = await discounted(CANVAS, 90);
  const quote = await callOperation<{ cost: number; list_price: number; discount: { percent: number; amount: number } | null }>(gw, 'calculateDynamicCost', { as: acct.liveKey, body: { model: CANVAS, input: ONE_IMAGE } });
  t.is(quote.status, 200, JSON.stringify(quote.body));
  t.like(quote.body, { list_price: 5, cost: 1, discount: { percent: 90, amount: 4 } }, '5 x 0.1 = 0.5 -> 0, raised to 1');
  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${CANVAS}`, headers: { 'x-api-key': acct.liveKey }, payload: ONE_IMAGE });
  t.is(submit.statusCode, 200, submit.payload);
  t.is((submit.result as { price: number }).price, 1);
  const id = (submit.result as { request_id: string }).request_id;
  t.is((await completed(id)).status, 'completed');
  t.deepEqual(await charges(id), [['hold', 0, 1], ['prediction', -1, -1]]);
  t.deepEqual(await wallet(acct.userId), { balance: 999, held: 0 });
});

test('100 % off is still free: nothing held, nothing charged', async (t) => {
  const acct = await discounted(CANVAS, 100);
  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${CANVAS}`, headers: { 'x-api-key': acct.liveKey }, payload: ONE_IMAGE });
  t.is(submit.statusCode, 200, submit.payload);
  t.is((submit.result as { price: number }).price, 0);
  const id = (submit.result as { request_id: string }).request_id;
  t.is((await completed(id)).status, 'completed');
  t.deepEqual(await charges(id), []);
  t.deepEqual(await wallet(acct.userId), { balance: 1_000, held: 0 });
});

test('a chat completion whose tokens cost 1 credit at 1 % off is charged 1 credit, and its hold was at least that', async (t) => {
  t.is(chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens), 1);
  const acct = await discounted(CHAT, 1);
  const res = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${acct.liveKey}` }, payload: { model: CHAT, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 } });
  t.is(res.statusCode, 200, res.payload);
  const id = String(res.headers['x-prediction-id']);
  const rows = await charges(id);
  t.deepEqual(rows.at(-1), ['prediction', -1, -1], 'charged 1 credit, not nothing');
  t.true(Number(rows[0]![2]) >= 1, 'the hold covers the charge');
  t.like(await gw.app.db('predictions').where({ id }).first(), { status: 'completed', price: 1 });
  t.deepEqual(await wallet(acct.userId), { balance: 999, held: 0 });
});

test('an asynchronous language-model call whose tokens cost 1 credit at 50 % off is held and charged 1 credit', async (t) => {
  const acct = await discounted(CHAT, 50);
  const submit = await gw.server.inject({ method: 'POST', url: `/api/v1/${CHAT}`, headers: { 'x-api-key': acct.liveKey }, payload: { prompt: 'hi', max_tokens: 4 } });
  t.is(submit.statusCode, 200, submit.payload);
  t.is((submit.result as { price: number }).price, 1, 'the hold of a 1-credit list price');
  const id = (submit.result as { request_id: string }).request_id;
  const row = await completed(id);
  t.is(row.status, 'completed', String(row.error));
  t.is(Number(row.price), 1);
  t.deepEqual(await charges(id), [['hold', 0, 1], ['prediction', -1, -1]]);
  t.deepEqual(await wallet(acct.userId), { balance: 999, held: 0 });
});
