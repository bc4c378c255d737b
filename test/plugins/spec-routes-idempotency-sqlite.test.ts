// The Idempotency-Key on the embedded default (SQLite, in-process queue): the duplicate-key
// mapping, the claim race and the takeover of an abandoned key behave as on MariaDB
// (test/plugins/spec-routes-idempotency.test.ts, test/helpers/idempotency-takeover.ts).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { canonicalJson } from '../../plugins/spec-routes.ts';
import { takeoverTests } from '../helpers/idempotency-takeover.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

test('concurrent and later retries with one key create one prediction on SQLite; another body is 409', async (t) => {
  const acct = await newAccount(gw, 1000);
  const send = (prompt: string) => gw.server.inject({
    method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', payload: { prompt }, headers: { 'x-api-key': acct.liveKey, 'idempotency-key': 'embedded' },
  });
  const answers = await Promise.all([send('same'), send('same'), send('same')]);
  for (const a of answers) t.is(a.statusCode, 200, a.payload);
  t.is(new Set(answers.map((a) => (a.result as { request_id: string }).request_id)).size, 1);
  t.is((await send('same')).headers['idempotent-replayed'], 'true');
  t.is((await send('different')).statusCode, 409);
  t.is((await gw.app.db('predictions').where({ user_id: acct.userId })).length, 1);
});

test('canonical JSON ignores key order and undefined members, and keeps array order', (t) => {
  t.is(canonicalJson({ b: 1, a: { d: [2, 1], c: null }, e: undefined }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  t.not(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  t.is(canonicalJson('x'), '"x"');
});

takeoverTests(test, () => gw);
