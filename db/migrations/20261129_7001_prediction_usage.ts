// What an inline call (a language model answered while the client waits: POST
// /v1/chat/completions) used and said: the provider's reported tokens and the answer's text, one
// row per such prediction, written with the prediction when the call starts (its tokens null
// until it settles) and completed in the settle's transaction. A table of its own, not columns of
// predictions: the hot submit, claim and completion statements stay as they are, and its row
// also marks a prediction as inline, which no worker may run (the sweepers leave it alone).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prediction_usage', (t) => {
    // removed with its prediction (bulk delete, account erasure): the text is the user's
    t.string('prediction_id', 32).primary().references('id').inTable('predictions').onDelete('CASCADE');
    t.integer('input_tokens').nullable();
    t.integer('output_tokens').nullable();
    // how the output tokens were known: reported (the provider's usage), counted (chunks relayed
    // when the provider reported none), null while running
    t.string('usage_source', 16).nullable();
    // the answer: up to 16 MB on MariaDB (mediumtext), unbounded on SQLite
    t.text('output_text', 'mediumtext').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('settled_at').nullable();
    // the sweeper's search for calls a stopped API process never settled
    t.index(['settled_at', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('prediction_usage');
}
