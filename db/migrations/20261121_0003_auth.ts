// End-user sign-in beyond passwords (issue 4): one-time codes, Google identities, the
// server-side half of an OpenID authorization request, and the shared rate-limit counters.
// Everything lives in the database because API processes are many and stateless.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // At most one live code per account and purpose: a new request replaces the row.
  await knex.schema.createTable('otp_codes', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // 'otp' (request-otp, register: login-otp and verify-otp) or 'reset' (forgot-password)
    t.string('purpose', 16).notNullable();
    // SHA-256 of purpose, account and code (hex); the code itself is never stored
    t.string('code_hash', 64).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('consumed_at').nullable();
    t.unique(['user_id', 'purpose']);
  });

  await knex.schema.createTable('user_identities', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('provider', 32).notNullable();
    // the provider's stable subject identifier (`sub`), never the email
    t.string('subject', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['provider', 'subject']);
    t.index(['user_id']);
  });

  // state -> nonce and PKCE verifier of a pending authorization request; single use, short-lived.
  await knex.schema.createTable('oauth_states', (t) => {
    // SHA-256 of the state value (hex)
    t.string('state_hash', 64).primary();
    t.string('nonce', 128).notNullable();
    t.string('code_verifier', 128).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });

  // Fixed-window counters: bucket = "<kind>:<sha256 of email or address>".
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('bucket', 100).primary();
    t.bigInteger('window_start').notNullable();
    t.integer('hits').notNullable();
    t.index(['window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
  await knex.schema.dropTableIfExists('oauth_states');
  await knex.schema.dropTableIfExists('user_identities');
  await knex.schema.dropTableIfExists('otp_codes');
}
