// Fewer round trips on completion (issue 15): a priced prediction's row records, at submit, the
// list price and discount percent its hold's ledger row records, so the charge copies them from the
// prediction the worker already read instead of SELECTing the hold row. Null on free predictions
// and on rows written before this migration (the charge then reads the hold row, as before).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.bigInteger('list_price').nullable();
    t.integer('discount_percent').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('list_price');
    t.dropColumn('discount_percent');
  });
}
