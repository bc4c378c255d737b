// Migration 20261201_0401 on MariaDB and SQLite: staff's text written before addresses stopped
// being kept (audit parameters and reasons, administrators' ledger descriptions, discount
// reasons) is rewritten as new rows are written: each address as the account that has it, an
// address no account has (an erased account's among them) as `[address]`. Rows without an address, and every
// other column, are left as they were.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0401_pseudonymise_staff_text';

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: addresses in old staff text become the accounts they name`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);

    const now = Date.now();
    const [alice] = await db('users').insert({ email: 'alice@example.com', created_at: now });
    const [staff] = await db('users').insert({ email: 'staff@example.com', created_at: now });
    const audit = { actor_user_id: staff, actor_role: 'admin', credential: 'session', status: 200, created_at: now };
    const [searched] = await db('admin_audit').insert({
      ...audit, action: 'adminSearchUsers', target_user_id: null,
      params: JSON.stringify({ query: { q: 'Alice@Example.com' }, body: { email: 'bob@gone.example', note: 'asked by bob@gone.example.' } }),
      reason: 'ticket from alice@example.com and bob@gone.example',
    });
    const [plain] = await db('admin_audit').insert({ ...audit, action: 'adminTopUp', target_user_id: alice, params: JSON.stringify({ body: { amount: 5 } }), reason: 'goodwill' });
    const ledger = { user_id: alice, team_id: null, amount: 100, held_change: 0, prediction_id: null, ref: '', balance_after: 100, held_after: 0, created_at: now };
    const [topup] = await db('credit_transactions').insert({ ...ledger, kind: 'topup', description: 'refund for bob@gone.example, see alice@example.com' });
    const [charge] = await db('credit_transactions').insert({ ...ledger, kind: 'charge', description: 'canvas-v1-fast-text-to-image' });
    const [discount] = await db('model_discounts').insert({
      owner_key: `user:${alice}`, user_id: alice, team_id: null, model: '*', percent_off: 10, expires_at: null,
      reason: 'partner deal via alice@example.com', created_by: staff, created_at: now, updated_at: now,
    });

    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    const row = await db('admin_audit').where({ id: searched }).first();
    t.deepEqual(JSON.parse(row.params), { query: { q: `user:${alice}` }, body: { email: '[no account]', note: 'asked by [address].' } });
    t.is(row.reason, `ticket from user:${alice} and [address]`);
    t.is((await db('admin_audit').where({ id: plain }).first()).reason, 'goodwill');
    t.is((await db('credit_transactions').where({ id: topup }).first()).description, `refund for [address], see user:${alice}`);
    t.is((await db('credit_transactions').where({ id: charge }).first()).description, 'canvas-v1-fast-text-to-image');
    t.is((await db('model_discounts').where({ id: discount }).first()).reason, `partner deal via user:${alice}`);

    // nothing to undo: down leaves the rewritten rows
    await db.migrate.down({ migrationSource });
    t.is((await db('model_discounts').where({ id: discount }).first()).reason, `partner deal via user:${alice}`);
  });
}
