// Migration 20261201_0801 (sandbox webhook signing secrets) on MariaDB and SQLite: up copies each
// owner's live production secrets (an account's, a team's) as its sandbox ones, in order and
// unexpired only, and the secrets' code runs on the new index (replaceSecret forces it by name on
// MariaDB); down removes the sandbox rows and the column, keeping the production rows.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { activeSecrets, replaceSecret } from '../../db/webhooks.ts';
import { seal } from '../../lib/secrets.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0801_sandbox_webhook_secrets';
const KEY = Buffer.alloc(32, 7);
const DAY = 24 * 3600 * 1000;

type Row = { secret_enc: string; created_at: number | string; expires_at: number | string | null; is_test?: number | boolean };
const shape = (rows: Row[]) => rows.map((r) => [r.secret_enc, Number(r.created_at), r.expires_at === null ? null : Number(r.expires_at)]);

async function secretRows(db: Db, table: string, column: string, id: number, isTest?: boolean): Promise<Row[]> {
  return db(table).where(column, id).modify((q) => { if (isTest !== undefined) q.andWhere('is_test', isTest); }).orderBy('id', 'asc');
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: up copies the live production secrets as sandbox ones; down removes them and the column`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    const now = Date.now();
    const [userId] = await db('users').insert({ email: 'a@example.com', created_at: now });
    const [otherId] = await db('users').insert({ email: 'b@example.com', created_at: now });
    const [teamId] = await db('teams').insert({ name: 'T', created_at: now });
    const secret = (n: number) => seal(`whsec_${Buffer.alloc(32, n).toString('base64')}`, KEY);
    // an expired one, the previous one still signing for a while, the current one
    await db('webhook_secrets').insert([
      { user_id: userId, secret_enc: secret(1), created_at: now - 3 * DAY, expires_at: now - DAY },
      { user_id: userId, secret_enc: secret(2), created_at: now - 2 * DAY, expires_at: now + DAY / 2 },
      { user_id: userId, secret_enc: secret(3), created_at: now - DAY, expires_at: null },
      { user_id: otherId, secret_enc: secret(4), created_at: now, expires_at: null },
    ]);
    await db('team_webhook_secrets').insert({ team_id: teamId, secret_enc: secret(5), created_at: now, expires_at: null });
    const before = shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(userId)));

    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    t.deepEqual(shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(userId), false)), before, 'the production rows are untouched');
    t.deepEqual(shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(userId), true)), before.slice(1), 'the live ones copied, in order');
    t.deepEqual(shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(otherId), true)), shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(otherId), false)));
    t.is((await secretRows(db, 'team_webhook_secrets', 'team_id', Number(teamId), true)).length, 1);
    // the sandbox secrets signing now are the production ones signing now, until either is rotated
    const user = { userId: Number(userId), teamId: null };
    const team = { userId: Number(userId), teamId: Number(teamId) };
    for (const owner of [user, team]) {
      t.deepEqual(await activeSecrets(db, owner, { sandbox: true }, KEY, now), await activeSecrets(db, owner, { sandbox: false }, KEY, now));
    }
    // the index replaceSecret forces on MariaDB exists; a rotation of one mode leaves the other
    const production = await activeSecrets(db, team, { sandbox: false }, KEY, now);
    await db.transaction((trx) => replaceSecret(trx, team, { sandbox: true }, KEY, now, { keepPrevious: true }));
    await db.transaction((trx) => replaceSecret(trx, user, { sandbox: true }, KEY, now, { keepPrevious: false }));
    t.deepEqual(await activeSecrets(db, team, { sandbox: false }, KEY, now), production);
    t.is((await activeSecrets(db, team, { sandbox: true }, KEY, now)).length, 2);
    t.is((await secretRows(db, 'webhook_secrets', 'user_id', Number(userId), true)).length, 1);
    t.deepEqual(shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(userId), false)), before);

    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasColumn('webhook_secrets', 'is_test'));
    t.false(await db.schema.hasColumn('team_webhook_secrets', 'is_test'));
    t.deepEqual(shape(await secretRows(db, 'webhook_secrets', 'user_id', Number(userId))), before);
    t.is((await db('webhook_secrets')).length, 4);
    t.is((await db('team_webhook_secrets')).length, 1);
    // and up again, as a redeploy of this version would
    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    t.is((await db('webhook_secrets').where('is_test', true)).length, 3);
  });
}
