// Alerts and budgets (docs/api/alerts.md): per wallet (a user's own, a team's) a low-balance
// threshold and a monthly budget (soft: alert only; hard: submits past it are refused); per API key a soft spend limit that alerts. `alerts` records each
// crossing once: its (subject, kind, period) is unique, so of concurrent submits that see the same
// crossing exactly one inserts it (and sends it). `low_balance_epoch` re-arms the low-balance alert:
// it moves on once the balance is seen back at or above the threshold after an alert.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  for (const table of ['users', 'teams']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('low_balance_threshold').nullable();
      t.bigInteger('monthly_budget').nullable();
      t.boolean('monthly_budget_hard').notNullable().defaultTo(false);
      t.integer('low_balance_epoch').notNullable().defaultTo(0);
    });
  }
  await knex.schema.alterTable('api_keys', (t) => {
    t.bigInteger('soft_spend_limit').nullable();
  });
  await knex.schema.createTable('alerts', (t) => {
    t.bigIncrements('id').primary();
    // the wallet it concerns (user_id and team_id as on every owned table) and, for a key's alert, the key
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams').onDelete('CASCADE');
    t.integer('api_key_id').unsigned().nullable();
    // 'u:<user id>', 't:<team id>' or 'k:<key id>': what crossed
    t.string('subject', 40).notNullable();
    // low_balance | monthly_budget | key_soft_limit
    t.string('kind', 24).notNullable();
    // the crossing's period: the low-balance epoch, the month (YYYY-MM) or the key limit's day or month
    t.string('period', 16).notNullable();
    t.bigInteger('threshold').notNullable();
    t.bigInteger('value').notNullable();
    // a random token of the insert that won: the winner alone sends the alert
    t.string('claim', 32).notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['subject', 'kind', 'period'], { indexName: 'alerts_crossing_unique' });
    t.index(['user_id', 'team_id', 'id'], 'alerts_owner_index');
    t.index(['team_id', 'id'], 'alerts_team_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('alerts');
  await knex.raw('ALTER TABLE api_keys DROP COLUMN soft_spend_limit');
  for (const table of ['users', 'teams']) {
    for (const column of ['low_balance_epoch', 'monthly_budget_hard', 'monthly_budget', 'low_balance_threshold']) {
      await knex.raw(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
}
