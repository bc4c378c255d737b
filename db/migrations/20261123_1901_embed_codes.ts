// Embed codes and agent embed codes (README "Embeds"): publishable credentials a web page uses to
// run the owner's bound model(s) on the owner's wallet. A prediction made with one records the
// code (`embed_code_id`) and the visitor it was made for (`embed_visitor`, the SHA-256 of the
// opaque visitor id), so a visitor reads only its own predictions and the caps count per code.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('embed_codes', (t) => {
    t.increments('id').primary();
    // publishable by nature (it sits in a web page): kept as written, so the owner can see it again
    t.string('code', 80).notNullable().unique();
    t.string('kind', 16).notNullable();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams');
    t.string('name', 200).notNullable();
    t.text('models').notNullable();
    t.text('preset').nullable();
    t.text('locked_inputs').nullable();
    t.text('allowed_fields').nullable();
    t.text('allowed_origins').notNullable();
    t.bigInteger('max_cost_per_run').nullable();
    t.bigInteger('daily_cap').nullable();
    t.bigInteger('monthly_cap').nullable();
    t.integer('rate_limit_per_minute').unsigned().nullable();
    t.integer('max_concurrent').unsigned().nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['user_id', 'team_id'], 'embed_codes_owner_index');
    t.index(['team_id'], 'embed_codes_team_index');
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.integer('embed_code_id').unsigned().nullable();
    t.string('embed_visitor', 64).nullable();
    // the caps sum a code's spend since a day or month start; the concurrency limit counts its unfinished runs
    t.index(['embed_code_id', 'created_at'], 'predictions_embed_code_created_index');
    t.index(['embed_code_id', 'status'], 'predictions_embed_code_status_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['embed_code_id', 'created_at'], 'predictions_embed_code_created_index');
    t.dropIndex(['embed_code_id', 'status'], 'predictions_embed_code_status_index');
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('embed_code_id');
    t.dropColumn('embed_visitor');
  });
  await knex.schema.dropTableIfExists('embed_codes');
}
