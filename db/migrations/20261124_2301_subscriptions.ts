// Subscriptions and expiring grants (README "Subscriptions"). `subscriptions` is one row per wallet
// (`wallet` is `user:<id>` or `team:<id>`): its plan, status and current period; the renewal job
// moves the period forward with a conditional UPDATE. `credit_grants` labels part of a wallet's
// credit as a period's grant: `remaining` is what is left of it (spending takes the grant that
// expires first before purchased credit), `cap_at`/`rollover_cap` when what is above the cap expires,
// `expires_at` when all of it does. The wallet's balance includes grant credit; the ledger
// (credit_transactions) records the grant (`subscription`) and its expiry (`expiry`) rows.
// One grant per subscription and period: unique (subscription_id, period_start).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.increments('id').primary();
    t.string('wallet', 32).notNullable().unique();
    // the user, or for a team's subscription the member named when it was set (recorded on its ledger rows)
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams');
    t.string('plan', 50).notNullable();
    // the plan the next period renews with (a change waits for the period's end); null: the same
    t.string('next_plan', 50).nullable();
    t.string('status', 16).notNullable();
    // epoch ms; months count from period_anchor (the first period's end)
    t.bigInteger('period_anchor').notNullable();
    t.bigInteger('current_period_start').notNullable();
    t.bigInteger('current_period_end').notNullable();
    t.bigInteger('cancelled_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['status', 'current_period_end']);
  });
  await knex.schema.createTable('credit_grants', (t) => {
    t.bigIncrements('id').primary();
    t.string('wallet', 32).notNullable();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams');
    t.integer('subscription_id').unsigned().notNullable().references('id').inTable('subscriptions');
    t.string('plan', 50).notNullable();
    t.bigInteger('period_start').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('remaining').notNullable();
    t.bigInteger('rollover_cap').notNullable().defaultTo(0);
    t.bigInteger('cap_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['subscription_id', 'period_start'], { indexName: 'credit_grants_subscription_period_unique' });
    t.index(['wallet', 'expires_at']);
    // the expiry sweep: grants with credit left (few) whose cap or end has come
    t.index(['remaining', 'cap_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credit_grants');
  await knex.schema.dropTable('subscriptions');
}
