// The credential cache's leases (README "Credential cache"): one row per API process that serves
// API keys from its cache, renewed every few seconds. `expires_at` is epoch ms in the database's
// own clock, so that every process compares it with the same clock.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('credential_cache_leases', (t) => {
    t.string('id', 64).primary();
    t.bigInteger('expires_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credential_cache_leases');
}
