// What a provider said of a completed result besides its outputs (seed, output size and length,
// rewritten prompt, its timings: lib/prediction-view.ts), kept beside the provider's cost of the
// same prediction, written by the same insert when the run ends (db/provider-costs.ts). JSON text;
// null when the provider said none of it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('prediction_costs', (t) => {
    t.text('metadata').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.raw('ALTER TABLE prediction_costs DROP COLUMN metadata');
}
