// Predictions: one row per accepted generation request, the unit of work of the queue.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('predictions', (t) => {
    t.string('id', 32).primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('api_key_id').unsigned().nullable();
    t.string('model', 191).notNullable();
    t.string('status', 16).notNullable();
    t.boolean('is_test').notNullable().defaultTo(false);
    t.text('input', 'mediumtext').notNullable();
    t.text('outputs', 'mediumtext').nullable();
    t.text('nsfw').nullable();
    t.text('error').nullable();
    // credit held at submit, debited on completion, released on failure or cancellation
    t.bigInteger('price').notNullable().defaultTo(0);
    t.string('webhook_url', 2048).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('inference_ms').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('started_at').nullable();
    t.bigInteger('completed_at').nullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['user_id', 'created_at']);
    // the sweeper looks for requests whose publish was never confirmed
    t.index(['status', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('predictions');
}
