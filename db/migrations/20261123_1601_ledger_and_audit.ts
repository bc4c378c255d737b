// Issue 11: the append-only ledger and the audit log of administrative calls.
//
// credit_transactions becomes the wallet's ledger: every move is a row (holds and releases too),
// rows are never updated or deleted, and for every wallet (a user's personal one: team_id null;
// a team's: team_id set)
//   sum(amount)      = balance + held   (the wallet's credit, spendable or reserved)
//   sum(held_change) = held
// `amount` keeps its meaning (signed change of the wallet's credit: a charge is negative, a hold
// or release is 0) and `balance_after` too; `held_change` and `held_after` are new. `ref` tells
// apart several rows of one kind for one prediction (partial refunds); the old unique
// (prediction_id, kind) becomes (prediction_id, kind, ref), so a prediction is still held,
// charged and released at most once. Existing wallets get an `opening` row for whatever their
// earlier rows do not explain (balances set before this migration, holds in flight), so the sums
// hold for existing data.
import type { Knex } from 'knex';

const num = (v: unknown) => Number(v ?? 0);

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.bigInteger('held_change').notNullable().defaultTo(0);
    // null on rows written before this migration
    t.bigInteger('held_after').nullable();
    t.string('ref', 64).notNullable().defaultTo('');
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropUnique(['prediction_id', 'kind']);
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.unique(['prediction_id', 'kind', 'ref'], { indexName: 'credit_transactions_prediction_kind_ref_unique' });
  });

  const now = Date.now();
  const users = await knex('users').select('id', 'balance', 'held');
  const userSums = new Map<number, { amount: number; held: number }>();
  for (const r of await knex('credit_transactions').whereNull('team_id').groupBy('user_id')
    .select('user_id', knex.raw('sum(amount) as amount'), knex.raw('sum(held_change) as held'))) {
    userSums.set(num(r.user_id), { amount: num(r.amount), held: num(r.held) });
  }
  for (const u of users) {
    const sums = userSums.get(num(u.id)) ?? { amount: 0, held: 0 };
    const amount = num(u.balance) + num(u.held) - sums.amount;
    const held = num(u.held) - sums.held;
    if (amount === 0 && held === 0) continue;
    await knex('credit_transactions').insert({
      user_id: u.id, team_id: null, amount, held_change: held, kind: 'opening', prediction_id: null, ref: '',
      description: 'opening balance (ledger started)', balance_after: num(u.balance), held_after: num(u.held), created_at: now,
    });
  }
  const teams = await knex('teams').select('id', 'balance', 'held');
  const teamSums = new Map<number, { amount: number; held: number }>();
  for (const r of await knex('credit_transactions').whereNotNull('team_id').groupBy('team_id')
    .select('team_id', knex.raw('sum(amount) as amount'), knex.raw('sum(held_change) as held'))) {
    teamSums.set(num(r.team_id), { amount: num(r.amount), held: num(r.held) });
  }
  for (const team of teams) {
    const sums = teamSums.get(num(team.id)) ?? { amount: 0, held: 0 };
    const amount = num(team.balance) + num(team.held) - sums.amount;
    const held = num(team.held) - sums.held;
    if (amount === 0 && held === 0) continue;
    // A ledger row names a user: the team's first owner, else any member, else whoever its last row named.
    const member = await knex('team_members').where('team_id', team.id).orderByRaw("case when role = 'owner' then 0 else 1 end").orderBy('user_id').first('user_id')
      ?? await knex('credit_transactions').where('team_id', team.id).orderBy('id', 'desc').first('user_id');
    if (!member) continue;
    await knex('credit_transactions').insert({
      user_id: member.user_id, team_id: team.id, amount, held_change: held, kind: 'opening', prediction_id: null, ref: '',
      description: 'opening balance (ledger started)', balance_after: num(team.balance), held_after: num(team.held), created_at: now,
    });
  }

  // One row per call of an operation with x-required-role; never updated or deleted.
  await knex.schema.createTable('admin_audit', (t) => {
    t.bigIncrements('id').primary();
    // no foreign keys: the record outlives the accounts it names
    t.integer('actor_user_id').unsigned().nullable();
    t.string('actor_role', 16).notNullable().defaultTo('');
    t.string('credential', 16).notNullable().defaultTo('');
    t.string('action', 64).notNullable();
    t.integer('target_user_id').unsigned().nullable();
    t.integer('target_team_id').unsigned().nullable();
    // query and body, JSON, with secrets redacted
    t.text('params').notNullable();
    t.string('reason', 500).nullable();
    t.integer('status').notNullable();
    t.string('client_address', 64).nullable();
    t.string('request_id', 200).nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['actor_user_id', 'id']);
    t.index(['target_user_id', 'id']);
    t.index(['action', 'id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('admin_audit');
  await knex('credit_transactions').where('kind', 'opening').delete();
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropUnique(['prediction_id', 'kind', 'ref'], 'credit_transactions_prediction_kind_ref_unique');
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.unique(['prediction_id', 'kind']);
    t.dropColumn('held_change');
    t.dropColumn('held_after');
    t.dropColumn('ref');
  });
}
