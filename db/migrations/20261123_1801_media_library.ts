// Uploads and the media library (issue 10). `uploads` records every upload address handed out:
// the storage key the file gets, the type and size it may have, and, for the gateway's own
// upload route (local storage), the SHA-256 of its single-use token. `media_assets` is the
// library: files an owner registered (an upload, a prediction output, or any URL); an asset made
// from an upload owns that file (deleting the asset removes it), hence one asset per upload.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('uploads', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable();
    // SHA-256 (hex) of the upload token of the gateway's own route; null for presigned (S3) uploads
    t.string('token_hash', 64).nullable().unique();
    t.string('storage_key', 200).notNullable().unique();
    t.string('filename', 255).notNullable();
    t.string('media_type', 8).notNullable();
    t.string('content_type', 64).notNullable();
    t.bigInteger('max_bytes').notNullable();
    // the size the client declared (bound into an S3 signature), if it did
    t.bigInteger('size_bytes').nullable();
    // pending -> writing (a PUT is in progress) -> done; a failed PUT goes back to pending
    t.string('state', 8).notNullable().defaultTo('pending');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('completed_at').nullable();
    t.index(['expires_at']);
  });
  await knex.schema.createTable('media_assets', (t) => {
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('team_id').unsigned().nullable();
    t.string('name', 255).notNullable();
    t.string('url', 2048).notNullable();
    t.string('media_type', 8).notNullable();
    t.string('content_type', 100).nullable();
    t.bigInteger('size_bytes').nullable();
    t.string('request_id', 64).nullable();
    // set when the asset is an upload of this gateway: the asset owns the stored file
    t.integer('upload_id').unsigned().nullable().unique().references('id').inTable('uploads').onDelete('SET NULL');
    t.string('storage_key', 200).nullable();
    t.bigInteger('created_at').notNullable();
    // newest first per owner (ownerWhere: user_id + team_id IS NULL, or team_id)
    t.index(['user_id', 'team_id', 'id']);
    t.index(['team_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('media_assets');
  await knex.schema.dropTableIfExists('uploads');
}
