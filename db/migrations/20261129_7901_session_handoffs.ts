// A Google sign-in started on a studio's own domain comes back to the gateway's address (the one
// callback Google knows), where a cookie would be set for the wrong site. The callback leaves a
// single-use hand-off here instead, and the studio's domain turns it into its own cookie session
// (handlers/google.ts). Only the SHA-256 of the hand-off code is kept; it lives one minute.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('session_handoffs', (t) => {
    t.string('code_hash', 64).primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('studio_id').unsigned().notNullable();
    t.bigInteger('expires_at').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('session_handoffs');
}
