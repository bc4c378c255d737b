// The log lines a running prediction's provider (or local adapter) wrote, normalised to
// timestamped lines (lib/run-logs.ts): JSON text, the last lines only, with the count of lines the
// provider has written so far, so a provider that answers its whole log on every poll (Replicate,
// fal) adds only what is new. Null until a line arrives. Kept after the run ends, like the
// providers' own logs.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.text('logs', 'mediumtext').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.raw('ALTER TABLE predictions DROP COLUMN logs');
}
