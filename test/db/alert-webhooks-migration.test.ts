// Migration 20261129_8001 (alert deliveries, answer excerpts, the alert webhook URL) goes up and
// down on MariaDB and SQLite keeping every delivery, and on SQLite it never rebuilds
// webhook_deliveries (its CREATE TABLE text is untouched: a rebuild would write a new one).
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261129_8001_alert_webhooks';

async function tableSql(db: Db, table: string): Promise<string | undefined> {
  const row = await db('sqlite_master').where({ type: 'table', name: table }).first<{ sql: string } | undefined>('sql');
  return row?.sql;
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: up and down keep every delivery and its attempts`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    t.false(await db.schema.hasTable('alert_deliveries'));
    t.false(await db.schema.hasColumn('webhook_attempts', 'response_excerpt'));

    const now = Date.now();
    const [userId] = await db('users').insert({ email: 'a@example.com', created_at: now });
    await db('predictions').insert({ id: 'p1', user_id: userId, model: 'm', status: 'completed', input: '{}', price: 1, created_at: now, updated_at: now });
    await db('webhook_deliveries').insert({ id: 'msg_1', prediction_id: 'p1', user_id: userId, url: 'https://example.com/h', status: 'delivered', attempts: 1, next_attempt_at: now, created_at: now, updated_at: now });
    await db('webhook_attempts').insert({ delivery_id: 'msg_1', number: 1, started_at: now, duration_ms: 5, status_code: 200 });
    const sqlBefore = engine === 'sqlite' ? await tableSql(db, 'webhook_deliveries') : undefined;

    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    t.true(await db.schema.hasTable('alert_deliveries'));
    t.true(await db.schema.hasTable('alert_delivery_attempts'));
    t.true(await db.schema.hasColumn('users', 'alert_webhook_url'));
    t.true(await db.schema.hasColumn('teams', 'alert_webhook_url'));
    t.deepEqual((await db('webhook_attempts').where({ delivery_id: 'msg_1' })).map((a: { status_code: number; response_excerpt: string | null }) => [Number(a.status_code), a.response_excerpt]), [[200, null]]);
    if (engine === 'sqlite') t.is(await tableSql(db, 'webhook_deliveries'), sqlBefore);

    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasTable('alert_deliveries'));
    t.false(await db.schema.hasColumn('users', 'alert_webhook_url'));
    t.is((await db('webhook_deliveries')).length, 1);
    t.is((await db('webhook_attempts')).length, 1);
  });
}
