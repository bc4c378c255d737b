// A provider's API answer past the cap (workers/adapters/upstream-http.ts MAX_ANSWER_BYTES, 64 MiB)
// through the real gateway: a job's submit or poll answer fails the prediction at once as the
// provider's protocol fault (never retried), a non-streamed chat answer fails the call 502; either
// way nothing is charged, and the operator gets a warning, not an error. SQLite and the in-process
// queue; the providers are third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { finishedRow, newAccount, startGateway, submitModel } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { captureLog } from '../helpers/logs.ts';
import { waitFor } from '../helpers/services.ts';

const LUMEN = 'https://lumen.upstream.test';
const OPENAI = 'https://api.openai.test';
/** an answer one byte past 64 MiB, JSON that would parse */
const HUGE = `{"id":"up-1","status":"processing","pad":"${'a'.repeat(64 * 1024 * 1024)}"}`;
const CREDIT = 100_000;

onlyLocalNetwork(test);

let gw: TestGateway;
let acct: Account;
const logs = captureLog('info');
type Line = { level: number; msg: string; id?: string; predictionId?: string; provider?: string };

test.before(async () => {
  gw = await startGateway({
    db: 'sqlite', queue: 'memory', worker: true, log: logs.log,
    env: { UPSTREAM_LUMEN_URL: LUMEN, UPSTREAM_LUMEN_KEY: 'sk-lumen', UPSTREAM_OPENAI_URL: `${OPENAI}/v1`, UPSTREAM_OPENAI_KEY: 'sk-openai', UPSTREAM_POLL_DELAYS_MS: '20', RETRY_DELAYS_MS: '20,40,60' },
  });
  acct = await newAccount(gw, CREDIT);
});
test.after.always(async () => {
  await gw?.stop();
});

const wallet = async () => {
  const row = await gw.app.db('users').where({ id: acct.userId }).first();
  return { balance: Number(row.balance), held: Number(row.held) };
};
const lines = () => logs.parsed<Line>();

for (const when of ['submit', 'poll'] as const) {
  test.serial(`a ${when} answer past the cap fails the prediction at once as the provider's fault, free of charge, with a warning`, async (t) => {
    const submit = nock(LUMEN).post(/\/v1\/models\/.*\/predictions/).once();
    if (when === 'submit') submit.reply(200, HUGE);
    else {
      submit.reply(200, { id: 'up-1', status: 'processing' });
      nock(LUMEN).get('/v1/predictions/up-1').once().reply(200, HUGE);
    }
    const before = await wallet();
    const id = await submitModel(gw, acct.liveKey, '/api/v1/lumen-dev-text-to-image', { prompt: `too much at ${when}` });
    const row = await finishedRow(gw, id);
    t.is(row.status, 'failed');
    t.is(row.error_code, 'upstream_protocol');
    t.regex(String(row.error), /^upstream "lumen" sent an answer larger than 64 MiB during (submission|polling); it was not read/);
    t.is(Number(row.attempts), 1, 'not retried: the provider would send it again');
    t.true(nock.isDone(), 'no call beyond the one that was cut off');
    t.deepEqual(await wallet(), { ...before, held: 0 }, 'the hold is released, nothing charged');
    t.is((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'prediction' })).length, 0);
    const warned = await waitFor(() => lines().find((l) => l.id === id && /larger than 64 MiB/.test(l.msg)), { what: 'the warning', timeoutMs: 5_000 });
    t.is(warned.level, 40, 'a warning');
    t.is(warned.provider, 'lumen');
    t.false(lines().some((l) => l.level >= 50), 'no error-level line');
    await assertLedger(t, gw.app.db);
  });
}

test.serial('a non-streamed chat answer past the cap fails the call 502 upstream_failed, free of charge, with a warning', async (t) => {
  nock(OPENAI).post('/v1/chat/completions').once().reply(200, `{"choices":[{"index":0,"message":{"role":"assistant","content":"${'a'.repeat(64 * 1024 * 1024)}"}}]}`);
  const before = await wallet();
  const res = await gw.server.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${acct.liveKey}` }, payload: { model: 'lexi-v1-balanced-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 } });
  t.is(res.statusCode, 502, res.payload.slice(0, 500));
  const error = (res.result as { error: { code: string; message: string } }).error;
  t.is(error.code, 'upstream_failed');
  t.regex(error.message, /the provider "openai" sent an answer larger than 64 MiB; it was not read; nothing was charged/);
  const row = await gw.app.db('predictions').where({ user_id: acct.userId, model: 'lexi-v1-balanced-chat' }).first();
  const id = String(row.id);
  t.is(row.status, 'failed');
  t.is(row.error_code, 'upstream_failed');
  t.deepEqual(await wallet(), { ...before, held: 0 }, 'the hold is released, nothing charged');
  const warned = lines().find((l) => l.predictionId === id && /larger than 64 MiB/.test(l.msg));
  t.is(warned?.level, 40, 'a warning naming the call');
  t.false(lines().some((l) => l.level >= 50), 'no error-level line');
  await assertLedger(t, gw.app.db);
});
