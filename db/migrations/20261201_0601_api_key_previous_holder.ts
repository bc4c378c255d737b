// Who holds a team API key's replaced secret: `previous_holder` is the member the key's secret was
// answered to before its last rotation (its `user_id` then), set while the replaced secret still
// works (`previous_key_hash`) and null otherwise. Removing that member from the team, or erasing
// their account, ends the replaced secret at once, as it revokes the keys whose current secret they
// hold; before, it kept working until the rotation's grace period ended (up to 30 days). Secrets
// replaced before this migration have no recorded holder and keep their grace period.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('previous_holder').unsigned().nullable();
    t.index(['previous_holder']);
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  if (knex.client.config.client === 'mysql2') await knex.raw('ALTER TABLE api_keys DROP INDEX api_keys_previous_holder_index');
  else await knex.raw('DROP INDEX IF EXISTS api_keys_previous_holder_index');
  await knex.raw('ALTER TABLE api_keys DROP COLUMN previous_holder');
}
