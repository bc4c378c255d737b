// Migration 20261201_0301 (subscriptions.stripe_subscription_id, stripe_event_at), on MariaDB and
// the embedded SQLite: a live plan whose current activation a paid subscription checkout started
// is linked to that checkout's Stripe subscription; a plan an admin activated after it, a cancelled
// plan and one whose Stripe subscription Stripe reported ended are not; down and up again.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { freshDatabase } from '../helpers/services.ts';

const MIGRATION = '20261201_0301_subscription_stripe_source';
const LATER = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m)).filter((name) => name > MIGRATION);

async function database(t: { teardown(fn: () => Promise<void>): void }, engine: 'MariaDB' | 'SQLite'): Promise<Db> {
  if (engine === 'MariaDB') {
    const fresh = await freshDatabase();
    const db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 2 });
    t.teardown(async () => { await db.destroy(); await fresh.drop(); });
    return db;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-subsource-'));
  const db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'db.sqlite'), poolMax: 1 });
  t.teardown(async () => { await db.destroy(); await fs.rm(dir, { recursive: true, force: true }); });
  return db;
}

for (const engine of ['MariaDB', 'SQLite'] as const) {
  test(`${engine}: existing plans are linked to the Stripe subscription whose checkout started their current activation, and the migration runs down and up`, async (t) => {
    const db = await database(t, engine);
    await migrate(db);
    for (let i = 0; i <= LATER.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasColumn('subscriptions', 'stripe_subscription_id'));

    const T = 1_790_000_000_000;
    for (const id of [1, 2, 3, 4]) await db('users').insert({ id, email: `u${id}@example.com`, created_at: 1 });
    const plan = (id: number, status: string, start: number) => ({
      id, wallet: `user:${id}`, user_id: id, team_id: null, plan: 'starter', next_plan: null, status, period_anchor: start,
      current_period_start: start, current_period_end: start + 30 * 86_400_000, cancelled_at: null, created_at: start, updated_at: start,
    });
    const checkout = (user: number, sub: string, outcome: string, at: number) => ({
      checkout_session_id: `${outcome === 'ended' ? 'ended:' : 'cs_'}${sub}`, stripe_subscription_id: sub, customer_id: null, user_id: user, team_id: null,
      plan: 'starter', amount: 1000, currency: 'usd', outcome, created_at: at,
    });
    const grant = (sub: number, start: number, createdAt: number) => ({
      wallet: `user:${sub}`, user_id: sub, team_id: null, subscription_id: sub, plan: 'starter', period_start: start, amount: 10, remaining: 0, rollover_cap: 0,
      cap_at: start + 1, expires_at: start + 1, created_at: createdAt,
    });
    // 1: bought through Stripe, renewed once since (the renewal's grant starts at the period's end, created later)
    await db('subscriptions').insert({ ...plan(1, 'held', T), current_period_start: T + 30 * 86_400_000 });
    await db('stripe_subscription_checkouts').insert(checkout(1, 'sub_a', 'started', T));
    await db('credit_grants').insert([grant(1, T, T), grant(1, T + 30 * 86_400_000, T + 30 * 86_400_000 + 5000)]);
    // 2: bought through Stripe, then activated by an admin later
    await db('subscriptions').insert(plan(2, 'active', T + 1000));
    await db('stripe_subscription_checkouts').insert(checkout(2, 'sub_b', 'started', T));
    await db('credit_grants').insert([grant(2, T, T), grant(2, T + 1000, T + 1000)]);
    // 3: bought through Stripe, cancelled
    await db('subscriptions').insert(plan(3, 'cancelled', T));
    await db('stripe_subscription_checkouts').insert(checkout(3, 'sub_c', 'started', T));
    await db('credit_grants').insert(grant(3, T, T));
    // 4: bought through Stripe, whose subscription Stripe reported ended
    await db('subscriptions').insert(plan(4, 'active', T));
    await db('stripe_subscription_checkouts').insert([checkout(4, 'sub_d', 'started', T), checkout(4, 'sub_d', 'ended', T + 5)]);
    await db('credit_grants').insert(grant(4, T, T));

    t.deepEqual(await migrate(db), [MIGRATION, ...LATER]);
    const rows = await db('subscriptions').orderBy('id').select('id', 'stripe_subscription_id', 'stripe_event_at');
    t.deepEqual(rows.map((r: { stripe_subscription_id: string | null }) => r.stripe_subscription_id), ['sub_a', null, null, null]);
    t.true(rows.every((r: { stripe_event_at: unknown }) => r.stripe_event_at === null));

    for (let i = 0; i <= LATER.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasColumn('subscriptions', 'stripe_subscription_id'));
    t.false(await db.schema.hasColumn('subscriptions', 'stripe_event_at'));
    t.is(Number((await db('credit_grants').count({ n: '*' }))[0]!.n), 6, 'the grants that reference the plans are kept');
    t.deepEqual(await migrate(db), [MIGRATION, ...LATER]);
  });
}
