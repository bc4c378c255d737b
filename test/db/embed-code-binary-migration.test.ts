// Migration 20261201_0901 (embed codes compare as written) on MariaDB and SQLite: after up, a
// code with one letter's case flipped finds no code, and the column keeps its length, NOT NULL and
// unique index; down gives MariaDB its case-insensitive comparison back. SQLite compares binary
// all along: up and down change nothing there, and run.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { findActiveEmbedCode } from '../../db/embed-codes.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0901_embed_code_binary';
const CODE = 'emb_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const FLIPPED = 'emb_abCdEfGhIjKlMnOpQrStUvWxYz012345';

async function column(db: Db): Promise<Record<string, unknown>> {
  const [rows] = await db.raw("SELECT COLUMN_TYPE, IS_NULLABLE, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'embed_codes' AND COLUMN_NAME = 'code'") as [Array<Record<string, unknown>>];
  return { ...rows[0] };
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: after up a code with a letter's case flipped is no code; down restores the old comparison`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    const now = Date.now();
    const [userId] = await db('users').insert({ email: 'owner@example.com', created_at: now });
    await db('embed_codes').insert({ code: CODE, kind: 'embed', user_id: userId, name: 'w', models: '["m"]', allowed_origins: '[]', created_at: now, updated_at: now });
    const before = engine === 'mysql' ? await column(db) : {};
    // the defect on MariaDB: the table's case-insensitive default collation
    t.is(await findActiveEmbedCode(db, FLIPPED) !== undefined, engine === 'mysql', 'before up');

    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    t.is((await findActiveEmbedCode(db, CODE))?.code, CODE);
    t.is(await findActiveEmbedCode(db, FLIPPED), undefined, 'after up');
    if (engine === 'mysql') {
      t.deepEqual(await column(db), { ...before, COLLATION_NAME: 'utf8mb4_bin' });
      const [indexes] = await db.raw("SHOW INDEX FROM embed_codes WHERE Column_name = 'code'") as [Array<{ Key_name: string; Non_unique: number }>];
      t.deepEqual(indexes.map((i) => [i.Key_name, Number(i.Non_unique)]), [['embed_codes_code_unique', 0]]);
    }
    // the unique index holds under the binary comparison: the same code again is refused
    await t.throwsAsync(db('embed_codes').insert({ code: CODE, kind: 'embed', user_id: userId, name: 'w2', models: '["m"]', allowed_origins: '[]', created_at: now, updated_at: now }));

    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.is(await findActiveEmbedCode(db, FLIPPED) !== undefined, engine === 'mysql', 'after down');
    if (engine === 'mysql') t.deepEqual(await column(db), before);
  });
}
