// Team-owned API keys and predictions at the db level, against real MariaDB: a team's rows are
// visible through the team only, never in the creating member's personal lists, and survive
// the member's removal.
import test from 'ava';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { freshDatabase, uniqueName } from '../helpers/services.ts';
import { createTeam, removeMember } from '../../db/teams.ts';
import { findTeamPrediction, insertTeamApiKey, listTeamKeys, listTeamPredictions, revokeTeamKey, teamOfKey } from '../../db/team-resources.ts';
import { findActiveKeyByHash, insertApiKey, listUserKeys, revokeKey } from '../../db/api-keys.ts';
import { findPrediction, newPredictionId } from '../../db/predictions/record.ts';
import { openStore } from '../../db/store/index.ts';
import type { Store } from '../../db/store/index.ts';
import { getTeamBalance } from '../../db/wallet/ledger.ts';
import { InsufficientCreditError } from '../../db/errors.ts';
import { sha256Hex } from '../../lib/secrets.ts';

let db: Db;
let store: Store;
let drop: () => Promise<void>;

test.before(async () => {
  const fresh = await freshDatabase(undefined, { migrated: true });
  drop = fresh.drop;
  db = createDb({ databaseUrl: fresh.url, sqliteFile: '' });
  await migrate(db);
  store = await openStore(db);
});
test.after.always(async () => {
  await db?.destroy();
  await drop?.();
});

async function user(): Promise<number> {
  const [id] = await db('users').insert({ email: `${uniqueName('u')}@example.com`, created_at: Date.now() });
  return Number(id);
}

const key = (name: string) => ({ name, prefix: 'mg_live_abcd', keyHash: sha256Hex(uniqueName(name)), isTest: false, ipWhitelist: [], scopes: null });

test('a team key is listed and revoked through its team only, and is revoked with its creator\'s membership', async (t) => {
  const owner = await user();
  const dev = await user();
  const team = await createTeam(db, owner, 'Keys', Date.now());
  await db('team_members').insert({ team_id: team.id, user_id: dev, role: 'developer', created_at: Date.now() });
  const personal = await insertApiKey(db, { userId: dev, ...key('personal') }, Date.now());
  const teamKeyInput = key('team');
  const teamKey = await insertTeamApiKey(db, { teamId: team.id, createdBy: dev, ...teamKeyInput }, Date.now());

  t.deepEqual((await listTeamKeys(db, team.id)).map((k) => k.id), [teamKey.id]);
  t.deepEqual((await listUserKeys(db, dev)).map((k) => k.id), [personal.id], 'the personal list holds no team key');
  t.false(await revokeKey(db, dev, teamKey.id, Date.now()), 'a team key is not revoked through the personal route');
  t.is(await teamOfKey(db, teamKey.id), team.id);
  t.is(await teamOfKey(db, personal.id), null);

  const other = await createTeam(db, owner, 'Other', Date.now());
  t.false(await revokeTeamKey(db, other.id, teamKey.id, Date.now()), "another team's key id is not found");
  const ownersInput = key('owners');
  const ownersKey = await insertTeamApiKey(db, { teamId: team.id, createdBy: owner, ...ownersInput }, Date.now());

  // the member goes, and the team key they created with them; the owner's stays
  t.like(await removeMember(db, team.id, dev, Date.now()), { previous: 'developer', revokedKeyIds: [teamKey.id] });
  t.is(await findActiveKeyByHash(db, teamKeyInput.keyHash), undefined);
  t.deepEqual((await listUserKeys(db, dev)).map((k) => k.id), [personal.id], 'their personal key is theirs, not the team\'s');
  t.deepEqual((await listTeamKeys(db, team.id)).map((k) => k.id), [ownersKey.id]);
  t.true(await revokeTeamKey(db, team.id, ownersKey.id, Date.now()));
  t.deepEqual(await listTeamKeys(db, team.id), []);
  t.is(await findActiveKeyByHash(db, ownersInput.keyHash), undefined);
});

test("a team's predictions are held on its wallet and listed for the team only", async (t) => {
  const owner = await user();
  const team = await createTeam(db, owner, 'Runs', Date.now());
  const other = await createTeam(db, owner, 'Elsewhere', Date.now());
  await db('teams').whereIn('id', [team.id, other.id]).update({ balance: 100 });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = newPredictionId(Date.now() + i);
    ids.push(id);
    await store.submit({ p: { id, teamId: team.id, userId: owner, apiKeyId: null, model: 'm', input: { prompt: String(i) }, price: 30, webhookUrl: null }, now: Date.now() });
  }
  await t.throwsAsync(
    store.submit({ p: { id: newPredictionId(Date.now()), teamId: team.id, userId: owner, apiKeyId: null, model: 'm', input: {}, price: 30, webhookUrl: null }, now: Date.now() }),
    { instanceOf: InsufficientCreditError },
  );
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 10, held: 90 });
  const personalId = newPredictionId(Date.now());
  await db('predictions').insert({ id: personalId, user_id: owner, model: 'm', status: 'queued', input: '{}', created_at: Date.now(), updated_at: Date.now() });

  t.deepEqual((await listTeamPredictions(db, team.id, { limit: 10 })).map((p) => p.id), [...ids].reverse());
  t.deepEqual((await listTeamPredictions(db, team.id, { limit: 1, before: ids[2] })).map((p) => p.id), [ids[1]]);
  t.deepEqual(await listTeamPredictions(db, other.id, { limit: 10 }), []);
  t.truthy(await findTeamPrediction(db, team.id, ids[0]!));
  t.is(await findTeamPrediction(db, other.id, ids[0]!), undefined);
  t.is(await findTeamPrediction(db, team.id, personalId), undefined);
  // Owner scoping (db/owner.ts): the member who submitted a team prediction does not see it as a
  // personal one, and the team scope does not see the member's personal one.
  t.is(await findPrediction(db, { userId: owner, teamId: null }, ids[0]!), undefined);
  t.truthy(await findPrediction(db, { userId: owner, teamId: null }, personalId));
  t.truthy(await findPrediction(db, { userId: owner, teamId: team.id }, ids[0]!));
  t.is(await findPrediction(db, { userId: owner, teamId: team.id }, personalId), undefined);
  t.is(await store.cancel({ userId: owner, teamId: null }, ids[0]!, Date.now()), 'not-found');

  // The wallet that held the price is the one that gets it back, or pays it: the team's, never the member's.
  await db('users').where({ id: owner }).update({ balance: 500 });
  t.is(await store.cancel({ userId: owner, teamId: team.id }, ids[0]!, Date.now()), 'cancelled');
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 40, held: 60 });
  const running = await store.claim({ id: ids[1]!, now: Date.now(), takeOver: false });
  t.truthy(running);
  t.true((await store.complete({ p: running!, result: { outputs: [], nsfw: [], inferenceMs: 1 }, now: Date.now() })).recorded);
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 40, held: 30 });
  const failing = await store.claim({ id: ids[2]!, now: Date.now(), takeOver: false });
  t.true((await store.fail(failing!, 'upstream said no', Date.now())).recorded);
  t.deepEqual(await getTeamBalance(db, team.id), { balance: 70, held: 0 });
  const member = await db('users').where({ id: owner }).first();
  t.deepEqual([Number(member.balance), Number(member.held)], [500, 0]);
  const debit = await db('credit_transactions').where({ prediction_id: ids[1], kind: 'prediction' });
  t.is(debit.length, 1);
  t.is(Number(debit[0].team_id), team.id);
});
