// The takeover of an abandoned Idempotency-Key (plugins/spec-routes.ts abandonedAfterMs), registered
// on both engines by test/plugins/spec-routes-idempotency.test.ts (MariaDB) and
// spec-routes-idempotency-sqlite.test.ts. A request whose process died leaves its key `running`;
// the tests write such a record (older or younger than the bound) the way a dead run leaves it, then
// retry with the key: past the bound the retry runs once, and finds what the dead run did instead of
// doing it again; before it, the retry still waits and gets 409.
import crypto from 'node:crypto';
import type { TestFn } from 'ava';
import type { TestGateway, Account } from './gateway.ts';
import { newAccount } from './gateway.ts';
import { callOperation } from './operation.ts';
import { abandonedAfterMs, IDEMPOTENCY_TTL_MS, idempotencyKeyHash } from '../../plugins/spec-routes.ts';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, handOverIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency.ts';
import { adminTopUp } from '../../db/wallet/admin.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const MODEL = '/api/v1/canvas-v1-fast-text-to-image';
const PAYLOAD = { prompt: 'taken over', num_images: 2 };
// base 2 + 3 per image
const PRICE = 8;

export function takeoverTests(test: TestFn, gwOf: () => TestGateway): void {
  const submit = (acct: Account, key: string, payload: object = PAYLOAD) => gwOf().server.inject({
    method: 'POST', url: MODEL, payload, headers: { 'x-api-key': acct.liveKey, 'idempotency-key': key },
  });
  const keyHash = (acct: Account, key: string) => idempotencyKeyHash({ isTest: false, owner: { userId: acct.userId, teamId: null } }, key);
  const predictions = async (acct: Account) => Number((await gwOf().app.db('predictions').where({ user_id: acct.userId }).count<{ n: number }[]>({ n: '*' }))[0]!.n);
  const wallet = async (acct: Account) => {
    const row = await gwOf().app.db('users').where({ id: acct.userId }).first<{ balance: number | string; held: number | string }>();
    return { balance: Number(row.balance), held: Number(row.held) };
  };
  const bound = () => abandonedAfterMs(gwOf().app.config);

  /**
   * Leaves `key` held by a request that died `ageMs` ago: a `running` record of the same request
   * as the one `sameAs` recorded (its request hash), with no answer. Only the columns every
   * version of the table has, unless `ref` (the prediction id the key's first claim recorded) is given.
   */
  async function leaveRunning(acct: Account, key: string, sameAs: string, ageMs: number, ref?: string) {
    const { db } = gwOf().app;
    const seed = await db('idempotency_keys').where({ key_hash: keyHash(acct, sameAs) }).first<{ request_hash: string; operation_id: string }>();
    const createdAt = gwOf().app.clock() - ageMs;
    await db('idempotency_keys').insert({
      key_hash: keyHash(acct, key), user_id: acct.userId, operation_id: seed.operation_id, request_hash: seed.request_hash,
      state: 'running', created_at: createdAt, expires_at: createdAt + IDEMPOTENCY_TTL_MS, ...(ref === undefined ? {} : { ref }),
    });
  }

  test('the abandonment bound is 10 minutes at least, and three of the longest route deadlines', (t) => {
    const config = gwOf().app.config;
    t.true(bound() >= 10 * 60_000);
    // 30 s of hapi's answer timeout and the longest wait (a chat call: 2 x CHAT_UPSTREAM_TIMEOUT_MS by default)
    t.true(bound() >= 3 * (30_000 + 2 * config.chatUpstreamTimeoutMs));
    t.is(abandonedAfterMs({ ...config, chatUpstreamTimeoutMs: 600_000 }), 3 * (30_000 + 1_200_000));
    t.is(abandonedAfterMs({ ...config, chatUpstreamTimeoutMs: 1000, imagesWaitMs: 1000 }), 10 * 60_000);
  });

  test('a running record older than the bound is abandoned: the retry with its key runs once and answers normally', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    const seed = await submit(acct, 'seed-old');
    t.is(seed.statusCode, 200, seed.payload);
    await leaveRunning(acct, 'died-old', 'seed-old', bound() + 1);
    const retry = await submit(acct, 'died-old');
    t.is(retry.statusCode, 200, retry.payload);
    t.is(retry.headers['idempotent-replayed'], undefined);
    const body = retry.result as { request_id: string; status: string; price: number };
    t.not(body.request_id, (seed.result as { request_id: string }).request_id);
    t.is(body.status, 'queued');
    t.is(body.price, PRICE);
    t.is(await predictions(acct), 2);
    t.deepEqual(await wallet(acct), { balance: 1000 - 2 * PRICE, held: 2 * PRICE });
    // its answer is the key's now: the next retry is a replay
    const again = await submit(acct, 'died-old');
    t.is(again.headers['idempotent-replayed'], 'true');
    t.deepEqual(again.result, retry.result);
    t.is(await predictions(acct), 2);
  });

  test('a run that died after creating its prediction: the retry that takes over answers with that prediction and charges nothing more', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    const first = await submit(acct, 'died-after-submit');
    t.is(first.statusCode, 200, first.payload);
    const { request_id: id } = first.result as { request_id: string };
    // as the record was before the answer was stored: running, with the prediction id its claim recorded
    const old = gwOf().app.clock() - bound() - 1;
    await gwOf().app.db('idempotency_keys').where({ key_hash: keyHash(acct, 'died-after-submit') })
      .update({ state: 'running', response_status: null, response_body: null, response_headers: null, created_at: old, expires_at: old + IDEMPOTENCY_TTL_MS });
    const retry = await submit(acct, 'died-after-submit');
    t.is(retry.statusCode, 200, retry.payload);
    t.like(retry.result, { request_id: id, status: 'queued', price: PRICE });
    t.is(retry.headers['x-cost'], String(PRICE));
    t.is(retry.headers['x-balance-remaining'], String(1000 - PRICE));
    t.is(await predictions(acct), 1);
    t.deepEqual(await wallet(acct), { balance: 1000 - PRICE, held: PRICE });
    t.is((await submit(acct, 'died-after-submit')).headers['idempotent-replayed'], 'true');
  });

  test('a key whose dead run never created its prediction: the retry creates it under the key\'s id, once', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    t.is((await submit(acct, 'seed-reserved')).statusCode, 200);
    const reserved = newPredictionId(gwOf().app.clock() - bound() - 1);
    await leaveRunning(acct, 'died-reserved', 'seed-reserved', bound() + 1, reserved);
    const retry = await submit(acct, 'died-reserved');
    t.is(retry.statusCode, 200, retry.payload);
    t.like(retry.result, { request_id: reserved, status: 'queued', price: PRICE });
    t.is(await predictions(acct), 2);
    t.deepEqual(await wallet(acct), { balance: 1000 - 2 * PRICE, held: 2 * PRICE });
  });

  test('a running record younger than the bound still makes the retry wait, then 409 "still being processed"', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    t.is((await submit(acct, 'seed-young')).statusCode, 200);
    // one minute short of the bound (the wait is 15 s)
    await leaveRunning(acct, 'alive', 'seed-young', bound() - 60_000);
    const started = Date.now();
    const retry = await submit(acct, 'alive');
    t.is(retry.statusCode, 409, retry.payload);
    t.regex((retry.result as { detail: string }).detail, /still being processed/);
    t.true(Date.now() - started >= 14_000, 'it waited for the first request to answer');
    t.is(await predictions(acct), 1);
    t.is((await findIdempotencyKey(gwOf().app.db, keyHash(acct, 'alive')))?.state, 'running');
  });

  test('a retry waiting for a run that fails is never answered with another request made under the key meanwhile: 409', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    const { db } = gwOf().app;
    t.is((await submit(acct, 'wait-seed-x')).statusCode, 200);
    const other = await submit(acct, 'wait-seed-y', { prompt: 'another request', num_images: 1 });
    t.is(other.statusCode, 200, other.payload);
    // request X holds the key, alive; its retry waits for its answer
    await leaveRunning(acct, 'wait-k', 'wait-seed-x', 0);
    const waiting = submit(acct, 'wait-k');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // X fails and frees the key, and request Y (another body) claims it at once, then answers
    const y = await db('idempotency_keys').where({ key_hash: keyHash(acct, 'wait-seed-y') }).first<{ request_hash: string; operation_id: string }>();
    const now = gwOf().app.clock();
    const claim = await db.transaction(async (trx) => {
      await trx('idempotency_keys').where({ key_hash: keyHash(acct, 'wait-k') }).delete();
      return claimIdempotencyKey(trx, { keyHash: keyHash(acct, 'wait-k'), userId: acct.userId, operationId: y.operation_id, requestHash: y.request_hash, ref: newPredictionId(now) }, now, IDEMPOTENCY_TTL_MS, bound());
    });
    if (claim.kind !== 'claimed') return t.fail('Y could not claim the freed key');
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.true(await completeIdempotencyKey(db, keyHash(acct, 'wait-k'), claim.token, { status: 200, body: other.result, headers: {} }));
    const res = await waiting;
    t.is(res.statusCode, 409, res.payload);
    t.regex((res.result as { detail: string }).detail, /already used with a different request/);
    t.is(await predictions(acct), 2);
  });

  test('concurrent retries on an abandoned key run the request once; the others get its answer', async (t) => {
    const acct = await newAccount(gwOf(), 1000);
    t.is((await submit(acct, 'seed-race')).statusCode, 200);
    await leaveRunning(acct, 'died-race', 'seed-race', bound() + 1);
    const answers = await Promise.all(Array.from({ length: 6 }, () => submit(acct, 'died-race')));
    for (const a of answers) t.is(a.statusCode, 200, a.payload);
    t.is(new Set(answers.map((a) => (a.result as { request_id: string }).request_id)).size, 1);
    t.is(answers.filter((a) => a.headers['idempotent-replayed'] === undefined).length, 1, 'one retry ran it');
    t.is(await predictions(acct), 2);
    t.deepEqual(await wallet(acct), { balance: 1000 - 2 * PRICE, held: 2 * PRICE });
  });

  test('of concurrent claims on an abandoned record exactly one takes it over', async (t) => {
    const acct = await newAccount(gwOf(), 0);
    const { db } = gwOf().app;
    const claim = { keyHash: crypto.randomBytes(32).toString('hex'), userId: acct.userId, operationId: 'adminTopup', requestHash: 'a'.repeat(64), ref: 'first-ref' };
    const t0 = gwOf().app.clock();
    t.is((await claimIdempotencyKey(db, claim, t0, IDEMPOTENCY_TTL_MS, bound())).kind, 'claimed');
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => claimIdempotencyKey(db, { ...claim, ref: `ref-${i}` }, t0 + bound(), IDEMPOTENCY_TTL_MS, bound())));
    t.is(outcomes.filter((o) => o.kind === 'claimed').length, 1);
    // the winner works under the key's first id, whichever id it brought
    t.true(outcomes.every((o) => o.kind === 'claimed' ? o.takenOver && o.ref === 'first-ref' : o.record.state === 'running'));
  });

  test('a run whose key was taken over can no longer store an answer, free the key or move money under it', async (t) => {
    const acct = await newAccount(gwOf(), 100);
    const { db } = gwOf().app;
    const claim = { keyHash: crypto.randomBytes(32).toString('hex'), userId: acct.userId, operationId: 'adminTopup', requestHash: 'b'.repeat(64), ref: 'its-ref' };
    const t0 = gwOf().app.clock();
    const first = await claimIdempotencyKey(db, claim, t0, IDEMPOTENCY_TTL_MS, bound());
    t.is((await claimIdempotencyKey(db, claim, t0 + bound() - 1, IDEMPOTENCY_TTL_MS, bound())).kind, 'existing', 'not before the bound');
    const second = await claimIdempotencyKey(db, claim, t0 + bound(), IDEMPOTENCY_TTL_MS, bound());
    if (first.kind !== 'claimed' || second.kind !== 'claimed') {
      t.fail('both should have claimed');
      return;
    }
    t.true(second.takenOver);
    const answer = { status: 200, body: { zombie: true }, headers: {} };
    t.false(await completeIdempotencyKey(db, claim.keyHash, first.token, answer));
    await releaseIdempotencyKey(db, claim.keyHash, first.token);
    await handOverIdempotencyKey(db, claim.keyHash, first.token);
    // the money move of the run that was taken over rolls back with its answer (IdempotentRun.completeWithin)
    await t.throwsAsync(adminTopUp(db, { userId: acct.userId, teamId: null }, 7, 'zombie', t0, async (trx) => {
      if (!await completeIdempotencyKey(trx, claim.keyHash, first.token, answer)) throw new Error('taken over');
    }), { message: 'taken over' });
    t.deepEqual(await wallet(acct), { balance: 100, held: 0 });
    t.like(await findIdempotencyKey(db, claim.keyHash), { state: 'running', ref: 'its-ref', response: null });
    // the run holding it fails after its work was done: it hands the key over, and the next
    // request takes it over at once (no bound to wait), with the same ref
    await handOverIdempotencyKey(db, claim.keyHash, second.token);
    t.like(await findIdempotencyKey(db, claim.keyHash), { state: 'released' });
    const third = await claimIdempotencyKey(db, { ...claim, ref: 'another' }, t0 + bound(), IDEMPOTENCY_TTL_MS, bound());
    t.like(third, { kind: 'claimed', ref: 'its-ref', takenOver: true });
    t.true(await completeIdempotencyKey(db, claim.keyHash, (third as { token: string }).token, answer));
    t.like(await findIdempotencyKey(db, claim.keyHash), { state: 'done', response: answer });
  });

  test('an admin top-up left running past the bound is taken over and moves the money once', async (t) => {
    const gw = gwOf();
    const billing = await newAccount(gw, 0);
    await gw.app.db('users').where({ id: billing.userId }).update({ role: 'billing' });
    const acct = await newAccount(gw, 100);
    const email = String((await gw.app.db('users').where({ id: acct.userId }).first('email')).email);
    const topup = (key: string) => callOperation<{ balance: number; amount: number }>(gw, 'adminTopup', { as: billing.session, body: { email, amount: 25 }, headers: { 'idempotency-key': key } });
    t.is((await topup('topup-seed')).status, 200);
    await leaveRunning(billing, 'topup-died', 'topup-seed', bound() + 1);
    const retry = await topup('topup-died');
    t.is(retry.status, 200);
    t.is(retry.headers['idempotent-replayed'], undefined);
    t.is(retry.body.balance, 150);
    // the answer was stored with the move, in its transaction
    t.like(await findIdempotencyKey(gw.app.db, keyHash(billing, 'topup-died')), { state: 'done', response: { status: 200, body: retry.body } });
    const again = await topup('topup-died');
    t.is(again.headers['idempotent-replayed'], 'true');
    t.deepEqual(again.body, retry.body);
    t.deepEqual(await wallet(acct), { balance: 150, held: 0 });
  });
}
