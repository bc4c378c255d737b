// Alerts as signed webhook events, and what receivers answered (issue 38).
//
// An alert's delivery has no prediction, but `webhook_deliveries.prediction_id` is NOT NULL with
// a foreign key to predictions. Making it nullable is an ALTER COLUMN, which SQLite can only do by
// rebuilding the table (copying every delivery), so alert deliveries get their own pair of tables
// instead, shaped like webhook_deliveries and webhook_attempts: the same ids (`msg_…`), states and
// attempt records, so the delivery worker, the sweeper, the delivery log and redelivery treat both
// alike. Every change here adds a table or a nullable column: no existing table is rebuilt.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // where a wallet's alerts are also sent as signed webhook events; null: by email only
  for (const table of ['users', 'teams']) {
    await knex.schema.alterTable(table, (t) => {
      t.string('alert_webhook_url', 2048).nullable();
    });
  }
  // the first bytes the receiver answered, as text (control characters replaced)
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.string('response_excerpt', 512).nullable();
  });

  await knex.schema.createTable('alert_deliveries', (t) => {
    // the Standard Webhooks `webhook-id`, the same on every attempt
    t.string('id', 40).primary();
    t.bigInteger('alert_id').unsigned().notNullable().references('id').inTable('alerts').onDelete('CASCADE');
    // the wallet whose alert it is (user_id and team_id as on every owned table)
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    // pending -> delivered | gone (410) | dead (retries exhausted); pending again on redelivery
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['user_id', 'team_id', 'created_at'], 'alert_deliveries_owner_index');
    t.index(['team_id', 'created_at'], 'alert_deliveries_team_index');
  });

  await knex.schema.createTable('alert_delivery_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.string('delivery_id', 40).notNullable().references('id').inTable('alert_deliveries').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.bigInteger('started_at').notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code').nullable();
    t.string('error', 500).nullable();
    t.string('response_excerpt', 512).nullable();
    t.index(['delivery_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('alert_delivery_attempts');
  await knex.schema.dropTableIfExists('alert_deliveries');
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table
  await knex.raw('ALTER TABLE webhook_attempts DROP COLUMN response_excerpt');
  for (const table of ['users', 'teams']) await knex.raw(`ALTER TABLE ${table} DROP COLUMN alert_webhook_url`);
}
