// What each prediction cost the operator at its provider, beside what the gateway was paid for it
// (docs/operating/model-files.md, "Provider cost and margin"): one row per prediction a provider
// (or the gateway itself) ran, written once when the run ends. A table of its own, not columns of
// predictions: the completion's statements on predictions stay as they are, and the margin report
// reads only this table, by day.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prediction_costs', (t) => {
    t.string('prediction_id', 64).primary();
    t.string('model', 200).notNullable();
    // UTC day number (epoch ms / 86,400,000, floored) of when the run ended: the report's grouping
    t.integer('day').notNullable();
    // who ran it: x-model.upstream, or `local` for the gateway's own adapters
    t.string('provider', 100).notNullable();
    t.string('upstream_model', 300).nullable();
    // credits the gateway was paid (the charge less a studio owner's markup); 0 when the
    // prediction did not complete although the provider ran it
    t.bigInteger('charged').notNullable();
    // credits the provider charged; null when neither its answer nor a cost rule says
    t.bigInteger('provider_cost').nullable();
    // reported (by the provider's answer), rule (x-model cost rule), local, unknown
    t.string('cost_source', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['day', 'model']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('prediction_costs');
}
