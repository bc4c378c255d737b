// Teams (issue 8): the first owner that is not a user. A team has its own wallet (same
// balance/held rules as a user's), members with a role, and single-use email invites.
// Keys, predictions and ledger rows gain a nullable team_id: null means the user's personal
// scope; set, the row belongs to the team and user_id records the member who acted.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams', (t) => {
    t.increments('id').primary();
    t.string('name', 100).notNullable();
    t.bigInteger('balance').notNullable().defaultTo(0);
    t.bigInteger('held').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    // soft delete: ledger rows and predictions keep pointing at the team
    t.bigInteger('deleted_at').nullable();
  });

  await knex.schema.createTable('team_members', (t) => {
    t.integer('team_id').unsigned().notNullable().references('id').inTable('teams').onDelete('CASCADE');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // owner | admin | developer | billing | viewer (lib/caller.ts)
    t.string('role', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['team_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('team_invites', (t) => {
    t.increments('id').primary();
    t.integer('team_id').unsigned().notNullable().references('id').inTable('teams').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('role', 16).notNullable();
    // SHA-256 of the token (hex); the token itself is only ever in the mail
    t.string('token_hash', 64).notNullable().unique();
    t.integer('invited_by').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('accepted_at').nullable();
    t.integer('accepted_by').unsigned().nullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['team_id', 'id']);
  });

  // No foreign key on the added columns: SQLite cannot add one without rebuilding the table,
  // and teams are never hard-deleted, so the reference cannot dangle.
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('team_id').unsigned().nullable();
    t.index(['team_id']);
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.integer('team_id').unsigned().nullable();
    t.index(['team_id', 'created_at']);
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.integer('team_id').unsigned().nullable();
    t.index(['team_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropIndex(['team_id', 'id']);
    t.dropColumn('team_id');
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['team_id', 'created_at']);
    t.dropColumn('team_id');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['team_id']);
    t.dropColumn('team_id');
  });
  await knex.schema.dropTableIfExists('team_invites');
  await knex.schema.dropTableIfExists('team_members');
  await knex.schema.dropTableIfExists('teams');
}
