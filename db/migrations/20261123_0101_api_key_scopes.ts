// Issue 16: a key created with an OAuth token carries at most that token's scopes. NULL keeps
// the meaning every existing key has: all five scopes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    // JSON array of scope names, or NULL for every scope
    t.text('scopes').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('scopes');
  });
}
