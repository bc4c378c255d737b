// Whitelabel studios (README "Whitelabel studios"): a partner's branded storefront of the gateway.
// `studios` holds the settings (slug = the x-whitelabel-studio header value); `studio_domains` one
// row per hostname, so a domain is unique across studios by index. Users get a nullable
// `studio_id` (the studio they registered in; email stays unique across the whole gateway, see the
// README). A prediction made in a studio's context records the studio, who pays it when that is
// not its owner (`payer_*`, owner_pays), and the owner's markup (`studio_markup`, end_user_pays),
// credited as a `studio_revenue` ledger row when it is charged.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('studios', (t) => {
    t.increments('id').primary();
    t.string('slug', 40).notNullable().unique();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users');
    t.integer('team_id').unsigned().nullable().references('id').inTable('teams');
    t.string('name', 200).notNullable();
    t.text('branding').notNullable();
    t.text('allowed_models').notNullable();
    t.integer('markup_percent').unsigned().notNullable().defaultTo(0);
    t.text('model_prices').notNullable();
    t.string('payer_mode', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('disabled_at').nullable();
    t.index(['user_id', 'team_id'], 'studios_owner_index');
    t.index(['team_id'], 'studios_team_index');
  });
  await knex.schema.createTable('studio_domains', (t) => {
    t.string('hostname', 253).notNullable().primary();
    t.integer('studio_id').unsigned().notNullable().references('id').inTable('studios');
    t.index(['studio_id'], 'studio_domains_studio_index');
  });
  await knex.schema.alterTable('users', (t) => {
    t.integer('studio_id').unsigned().nullable();
    t.index(['studio_id'], 'users_studio_index');
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.integer('studio_id').unsigned().nullable();
    t.bigInteger('studio_markup').notNullable().defaultTo(0);
    t.integer('payer_user_id').unsigned().nullable();
    t.integer('payer_team_id').unsigned().nullable();
    t.index(['studio_id', 'created_at'], 'predictions_studio_created_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['studio_id', 'created_at'], 'predictions_studio_created_index');
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.dropColumn('studio_id');
    t.dropColumn('studio_markup');
    t.dropColumn('payer_user_id');
    t.dropColumn('payer_team_id');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['studio_id'], 'users_studio_index');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('studio_id');
  });
  await knex.schema.dropTableIfExists('studio_domains');
  await knex.schema.dropTableIfExists('studios');
}
