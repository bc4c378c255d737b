// Migration 20261201_0501 (the outbox of Stripe cancellations) on MariaDB and SQLite: up makes the
// table, whose subscription id is unique (a second record of it is a no-op), and down removes it.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { recordStripeCancellation } from '../../db/stripe-cancellations.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0501_stripe_cancellations';

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: up makes the outbox, one row per subscription; down removes it`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    t.false(await db.schema.hasTable('stripe_cancellations'));
    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    const now = Date.now();
    await recordStripeCancellation(db, 'sub_1', { userId: 1, teamId: null }, 'first', now);
    await recordStripeCancellation(db, 'sub_1', { userId: 2, teamId: 3 }, 'second', now + 1);
    const rows = await db('stripe_cancellations');
    t.is(rows.length, 1);
    t.like(rows[0], { stripe_subscription_id: 'sub_1', user_id: 1, team_id: null, reason: 'first', attempts: 0, done_at: null });
    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasTable('stripe_cancellations'));
  });
}
