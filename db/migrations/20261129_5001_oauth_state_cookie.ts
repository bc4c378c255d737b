// Google sign-in from the dashboard (docs/api/dashboard.md): a sign-in started with
// `session=cookie` ends, at the callback, in the session cookie and a redirect to the page it
// started from. Google's redirect carries neither, so the pending request remembers the page
// (null: answer the session as JSON, as before).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_states', (t) => {
    t.string('return_to', 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.raw('ALTER TABLE oauth_states DROP COLUMN return_to');
}
