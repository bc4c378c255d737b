// Model discounts (README "Discounts"): a wallet's percentage off one model or every model (`*`),
// with an optional expiry. A personal discount has team_id null; a team's has team_id set (and in
// user_id the member the administrator named). `owner_key` ('u<user id>' or 't<team id>') makes
// "one discount per wallet and model" a plain unique index on both engines (a unique index over a
// nullable team_id would let duplicates through, NULL never being equal). The ledger rows of a
// prediction's hold and charge record the price before the discount and the percent taken off.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('model_discounts', (t) => {
    t.increments('id').primary();
    t.string('owner_key', 32).notNullable();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams').onDelete('CASCADE');
    t.string('model', 200).notNullable();
    t.integer('percent_off').notNullable();
    t.bigInteger('expires_at').nullable();
    t.string('reason', 255).nullable();
    t.integer('created_by').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['owner_key', 'model'], { indexName: 'model_discounts_owner_model_unique' });
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    // null on rows that are not a hold or charge, and on those without a discount's record
    t.bigInteger('list_price').nullable();
    t.integer('discount_percent').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropColumn('list_price');
    t.dropColumn('discount_percent');
  });
  await knex.schema.dropTable('model_discounts');
}
