// Idempotency-Key (README "Idempotent requests"): one row per (owner, key) for 24 hours, holding
// a hash of the request and, once it succeeded, its answer, so a retry is answered from here
// instead of running (and charging) again. The key itself is kept only as part of a hash.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    // SHA-256 of the owner scope and the key: the primary key is what makes two concurrent
    // requests with one key race on a single INSERT, which exactly one wins
    t.string('key_hash', 64).primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('operation_id', 200).notNullable();
    // SHA-256 of the operation, path, query and body: another request under the same key is 409
    t.string('request_hash', 64).notNullable();
    // running (the first request is being served) -> done (its answer is stored)
    t.string('state', 16).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body', 'mediumtext').nullable();
    t.text('response_headers').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
