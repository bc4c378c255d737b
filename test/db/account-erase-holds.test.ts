// Erasing an account (db/account-deletion.ts eraseAccount) while one of its personal predictions
// still holds credit: the hold goes back to the wallet that placed it, with its `release` row, so
// no credit stays held for a prediction that no longer exists. Matters most for a whitelabel
// studio's owner_pays runs, whose holds are on the studio owner's wallet, not the erased user's.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { eraseAccount } from '../../db/account-deletion.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const MODEL = 'canvas-v1-fast-text-to-image';

let gw: TestGateway;
test.before(async () => {
  // MariaDB when the suite has one (TEST_MYSQL_URL), else the embedded SQLite file
  gw = await startGateway({ db: process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

async function wallet(userId: number) {
  const row = await gw.app.db('users').where('id', userId).first<{ balance: number | string; held: number | string }>('balance', 'held');
  return { balance: Number(row.balance), held: Number(row.held) };
}

test('an erased end user\'s unfinished owner_pays run gives its hold back to the studio owner', async (t) => {
  const owner = await newAccount(gw, 10_000);
  const slug = uniqueName('st').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
  const studio = await callOperation<{ id: number }>(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Shop', allowed_models: [MODEL], payer_mode: 'owner_pays', markup_percent: 0 } });
  t.is(studio.status, 201, JSON.stringify(studio.body));
  const endUser = await newAccount(gw, 500);
  const now = gw.app.clock();
  // a run queued in the studio, paid by its owner, and one of the end user's own
  const studioRun = newPredictionId(now);
  await gw.app.store.submit({ p: { id: studioRun, userId: endUser.userId, apiKeyId: null, model: MODEL, input: { prompt: 'x' }, price: 40, webhookUrl: null, source: 'studio', studioId: studio.body.id, payer: { userId: owner.userId, teamId: null } }, now });
  const ownRun = newPredictionId(now);
  await gw.app.store.submit({ p: { id: ownRun, userId: endUser.userId, apiKeyId: null, model: MODEL, input: { prompt: 'y' }, price: 30, webhookUrl: null, source: 'api' }, now });
  t.deepEqual(await wallet(owner.userId), { balance: 9_960, held: 40 });
  t.deepEqual(await wallet(endUser.userId), { balance: 470, held: 30 });

  t.like(await eraseAccount(gw.app.db, endUser.userId, gw.app.clock(), { immediate: true }), { kind: 'erased', upstreamJobs: [] });

  // nothing stays held for predictions that are gone
  t.deepEqual(await wallet(owner.userId), { balance: 10_000, held: 0 });
  t.deepEqual(await wallet(endUser.userId), { balance: 500, held: 0 });
  const kinds = await gw.app.db('credit_transactions').where('prediction_id', studioRun).orderBy('id').pluck('kind');
  t.deepEqual(kinds, ['hold', 'release']);
  await assertLedger(t, gw.app.db);
});
