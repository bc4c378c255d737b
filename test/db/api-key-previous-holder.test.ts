// Migration 20261201_0601 (api_keys.previous_holder) on MariaDB and the embedded SQLite: a team
// key's replaced secret records who held it, and removing that member ends it while the key's
// current secret keeps working; the migration runs down (keeping every key) and up again.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { createTeam, removeMember } from '../../db/teams.ts';
import { insertTeamApiKey } from '../../db/team-resources.ts';
import { findActiveKeyByHash, rotateKey } from '../../db/api-keys.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const MIGRATION = '20261201_0601_api_key_previous_holder';

async function user(db: Db, name: string): Promise<number> {
  const [id] = await db('users').insert({ email: `${name}@example.com`, created_at: Date.now() });
  return Number(id);
}

const secret = (name: string) => ({ name, prefix: 'mg_live_abcd', keyHash: sha256Hex(name), isTest: false, ipWhitelist: [], scopes: null });

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: removing the member who held a team key's replaced secret ends it; the migration runs down and up`, async (t) => {
    const db = await databaseBefore(t, engine, MIGRATION);
    await migrate(db);
    const now = Date.now();
    const [owner, creator, rotator] = [await user(db, 'owner'), await user(db, 'creator'), await user(db, 'rotator')];
    const team = await createTeam(db, owner, 'Rotations', now);
    for (const [id, role] of [[creator, 'developer'], [rotator, 'admin']] as const) await db('team_members').insert({ team_id: team.id, user_id: id, role, created_at: now });
    const first = secret('first');
    const key = await insertTeamApiKey(db, { teamId: team.id, createdBy: creator, ...first }, now);
    const second = { prefix: 'mg_live_efgh', keyHash: sha256Hex('second'), holder: rotator };
    await rotateKey(db, { teamId: team.id }, key.id, second, now + 3_600_000, now);
    t.like(await findActiveKeyByHash(db, first.keyHash), { id: key.id, retiredSecret: true }, 'the replaced secret works in its grace period');
    t.is(Number((await db('api_keys').where({ id: key.id }).first('previous_holder')).previous_holder), creator);

    t.like(await removeMember(db, team.id, creator, now + 1), { revokedKeyIds: [], endedSecretKeyIds: [key.id] });
    t.is(await findActiveKeyByHash(db, first.keyHash), undefined, 'it ends with its holder');
    t.like(await findActiveKeyByHash(db, second.keyHash), { id: key.id }, 'the current secret keeps working');

    for (let i = 0; i < (await migrationsFrom(MIGRATION)).length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasColumn('api_keys', 'previous_holder'));
    t.is(Number((await db('api_keys').count({ n: '*' }).first())?.n), 1, 'down keeps the keys');
    await migrate(db);
    t.true(await db.schema.hasColumn('api_keys', 'previous_holder'));
  });
}
