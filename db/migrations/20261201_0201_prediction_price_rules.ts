// A language model's price rule as it stood when its asynchronous prediction was held
// (spec/pricing.ts storePriceRule): the charge by usage at completion uses it, so a catalog
// reload that reprices the model meanwhile does not change what the prediction costs. Null for
// every other prediction, and for those made before this migration (they keep the old rule: the
// model's price at completion, capped at the hold).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.text('price_rule').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.raw('ALTER TABLE predictions DROP COLUMN price_rule');
}
