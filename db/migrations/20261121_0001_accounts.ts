// Users with their wallet, API keys and login sessions. Times are epoch milliseconds
// (BIGINT) so MariaDB and SQLite agree exactly; money is integer credits (1000 = 1 USD).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.increments('id').primary();
    t.string('email', 320).notNullable().unique();
    t.string('password_hash', 255).nullable();
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.string('role', 16).notNullable().defaultTo('user');
    // available credit; `held` is reserved by predictions that have not finished yet
    t.bigInteger('balance').notNullable().defaultTo(0);
    t.bigInteger('held').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 100).notNullable().defaultTo('');
    t.string('prefix', 32).notNullable();
    // SHA-256 of the whole key (hex); the key itself is never stored
    t.string('key_hash', 64).notNullable().unique();
    t.boolean('is_test').notNullable().defaultTo(false);
    t.text('ip_whitelist').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at').nullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('sessions', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('credit_transactions', (t) => {
    t.bigIncrements('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // signed: positive adds credit, negative removes it
    t.bigInteger('amount').notNullable();
    t.string('kind', 32).notNullable();
    t.string('prediction_id', 32).nullable();
    t.string('description', 255).notNullable().defaultTo('');
    t.bigInteger('balance_after').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['user_id', 'id']);
    // a prediction is debited at most once, whatever a worker retries
    t.unique(['prediction_id', 'kind']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('credit_transactions');
  await knex.schema.dropTableIfExists('sessions');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('users');
}
