// Google sign-in in a whitelabel studio's context (README "Whitelabel studios"): the pending
// authorization request remembers the studio it was started in, since Google's redirect back to
// the callback carries no studio header.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_states', (t) => {
    t.integer('studio_id').unsigned().nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_states', (t) => {
    t.dropColumn('studio_id');
  });
}
