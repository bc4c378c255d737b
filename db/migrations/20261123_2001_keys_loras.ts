// Issue 10 (helper h7): key expiry and spend limits, and the LoRA registry.
// - api_keys gains `expires_at` (epoch ms, null: never) and a spend limit per period
//   (`spend_limit` credits, `spend_limit_period` 'day' | 'month', UTC); the spend of a key in a
//   period is read from its predictions (index below), so no second counter can drift from them.
// - loras: public entries (owner null, seeded here) and entries registered by a user or a team.
import type { Knex } from 'knex';

const SEED_AT = Date.UTC(2026, 10, 23);

/** A few public LoRAs: lumen (upstream image family) and canvas-v1 (the local one), the families whose schemas take `loras`. */
const SEEDS: Array<{ name: string; lora_type: string; title: string; description: string; trigger_words: string[]; base_model?: string }> = [
  { name: 'watercolor-wash', lora_type: 'style', title: 'Watercolor wash', description: 'Soft watercolor washes with paper texture and bleeding edges.', trigger_words: ['wtrclr style'] },
  { name: 'ink-noir', lora_type: 'style', title: 'Ink noir', description: 'High-contrast black ink illustration with heavy shadows.', trigger_words: ['inknoir'] },
  { name: 'retro-pixel', lora_type: 'style', title: 'Retro pixel art', description: '16-bit era pixel art with a limited palette.', trigger_words: ['pxl16'] },
  { name: 'captain-nova', lora_type: 'character', title: 'Captain Nova', description: 'A consistent sci-fi heroine: silver flight suit, short red hair.', trigger_words: ['cptnova', 'silver flight suit'] },
  { name: 'isometric-room', lora_type: 'concept', title: 'Isometric room', description: 'Cut-away isometric interiors on a plain background.', trigger_words: ['isoroom'] },
  { name: 'canvas-stripes', lora_type: 'style', title: 'Canvas stripes', description: 'Banded stripe patterns for the local canvas-v1 renderer.', trigger_words: ['stripes'], base_model: 'canvas-v1' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.bigInteger('expires_at').nullable();
    t.bigInteger('spend_limit').unsigned().nullable();
    t.string('spend_limit_period', 8).nullable();
  });
  await knex.schema.alterTable('predictions', (t) => {
    // a key's spend in a period: SUM(price) WHERE api_key_id = ? AND created_at >= ?
    t.index(['api_key_id', 'created_at'], 'predictions_api_key_created_index');
  });
  await knex.schema.createTable('loras', (t) => {
    t.increments('id').primary();
    // null: a public entry; otherwise the registering user (and team_id for a team's entry)
    t.integer('user_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable();
    t.string('name', 100).notNullable();
    t.string('lora_type', 32).notNullable();
    t.string('title', 200).notNullable();
    t.string('description', 2000).notNullable();
    t.string('base_model', 50).notNullable();
    t.text('trigger_words').notNullable();
    t.string('preview_url', 2048).nullable();
    t.string('weights_url', 2048).notNullable();
    t.bigInteger('created_at').notNullable();
    // a name is unique per owner scope; `scope_key` is 'public', 'u<id>' or 't<id>' so one unique index covers all three
    t.string('scope_key', 24).notNullable();
    t.unique(['scope_key', 'name'], { indexName: 'loras_scope_name_unique' });
    t.index(['lora_type', 'name'], 'loras_type_name_index');
    t.index(['user_id', 'team_id'], 'loras_owner_index');
    t.index(['team_id'], 'loras_team_index');
  });
  await knex('loras').insert(SEEDS.map((s) => ({
    user_id: null, team_id: null, scope_key: 'public', name: s.name, lora_type: s.lora_type, title: s.title, description: s.description,
    base_model: s.base_model ?? 'lumen', trigger_words: JSON.stringify(s.trigger_words),
    preview_url: `https://example.com/loras/previews/${s.name}.webp`, weights_url: `https://example.com/loras/weights/${s.name}.safetensors`,
    created_at: SEED_AT,
  })));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('loras');
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['api_key_id', 'created_at'], 'predictions_api_key_created_index');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('expires_at');
    t.dropColumn('spend_limit');
    t.dropColumn('spend_limit_period');
  });
}
