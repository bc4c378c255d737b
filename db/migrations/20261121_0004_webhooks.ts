// Webhook delivery (interface spec 2.2 and 6): per-account signing secrets (encrypted at
// rest, several live during a rotation), one delivery per finished prediction with a
// webhook, and every attempt of it. Predictions gain their review status.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_secrets', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // AES-256-GCM under ENCRYPTION_KEY: the gateway must sign with it, so it cannot be a hash
    t.text('secret_enc').notNullable();
    t.bigInteger('created_at').notNullable();
    // set when a newer secret replaces it; deliveries carry both signatures until then
    t.bigInteger('expires_at').nullable();
    t.index(['user_id', 'id']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    // the Standard Webhooks `webhook-id`, the same on every attempt
    t.string('id', 40).primary();
    t.string('prediction_id', 32).notNullable().references('id').inTable('predictions').onDelete('CASCADE');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    // pending -> delivered | gone (410) | dead (retries exhausted); pending again on redelivery
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code').nullable();
    t.string('last_error', 500).nullable();
    // when the next attempt is due; a pending delivery long past it lost its message (publish
    // never confirmed) and the sweeper publishes it again
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['prediction_id']);
    t.index(['status', 'next_attempt_at']);
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.string('delivery_id', 40).notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.bigInteger('started_at').notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code').nullable();
    t.string('error', 500).nullable();
    t.index(['delivery_id', 'id']);
  });

  await knex.schema.alterTable('predictions', (t) => {
    t.string('review_status', 16).notNullable().defaultTo('unreviewed');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('review_status');
  });
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_secrets');
}
