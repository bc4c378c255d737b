// Team webhook signing secrets: a team prediction's deliveries are signed with its team's
// secrets, never a member's (a member who left would still hold, reveal and rotate the secret
// signing the team's deliveries). A table of their own rather than a nullable team_id on
// webhook_secrets: its user_id stays NOT NULL with its cascade (SQLite cannot relax it without
// rebuilding the table), and account deletion, which erases webhook_secrets by user_id, can
// never reach a team's. Same rules as an account's (db/webhooks.ts): sealed, at most two live.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('team_webhook_secrets', (t) => {
    t.increments('id').primary();
    t.integer('team_id').unsigned().notNullable().references('id').inTable('teams').onDelete('CASCADE');
    // AES-256-GCM under ENCRYPTION_KEY, as webhook_secrets.secret_enc
    t.text('secret_enc').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').nullable();
    t.index(['team_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('team_webhook_secrets');
}
