// OAuth 2.0 client credentials (issue 5): clients owned by users, and the storage of
// oidc-provider. API processes are many and stateless, so the provider's tokens live here,
// never in process memory.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // public identifier sent by the client (Basic user name or client_id parameter)
    t.string('client_id', 64).notNullable().unique();
    // SHA-256 of the secret (hex); the secret is 256 random bits and never stored
    t.string('secret_hash', 64).notNullable();
    t.string('name', 100).notNullable();
    // JSON array of scope names: the upper bound of what a token of this client may carry
    t.text('allowed_scopes').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at').nullable();
    t.index(['user_id']);
  });

  // oidc-provider's adapter storage: one row per model instance (kind = model name, e.g.
  // "ClientCredentials"). Clients are not stored here: they come from oauth_clients.
  await knex.schema.createTable('oauth_provider_records', (t) => {
    t.string('kind', 64).notNullable();
    t.string('id', 255).notNullable();
    // the adapter payload, JSON
    t.text('payload').notNullable();
    t.string('grant_id', 255).nullable();
    t.string('uid', 255).nullable();
    t.string('user_code', 255).nullable();
    // the client a token belongs to, so that deleting a client destroys its tokens with one query
    t.string('client_id', 64).nullable();
    t.bigInteger('expires_at').nullable();
    t.bigInteger('consumed_at').nullable();
    t.primary(['kind', 'id']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['user_code']);
    t.index(['client_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('oauth_provider_records');
  await knex.schema.dropTableIfExists('oauth_clients');
}
