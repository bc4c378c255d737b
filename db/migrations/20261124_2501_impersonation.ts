// Impersonation and support links (README "Impersonation and support links"): a session opened by
// a staff member for a user names them (`sessions.impersonator_id`), and support links are
// single-use tokens, stored as SHA-256 digests, that a staff member makes for one account.
// `impersonator_id` has no foreign key: adding one to an existing table makes SQLite rebuild it,
// and users rows are never deleted (an erased account stays as a tombstone).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.integer('impersonator_id').unsigned().nullable();
  });
  await knex.schema.createTable('support_links', (t) => {
    t.increments('id').primary();
    /** 'login' (supportLogin) or 'reset' (supportResetPassword) */
    t.string('kind', 8).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('created_by').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('reason', 500).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('support_links');
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('impersonator_id');
  });
}
