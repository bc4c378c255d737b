// The database a migration's test starts from: every migration applied, then the tested one and
// every one after it taken down again, on MariaDB (a fresh database) or SQLite (a fresh file).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { freshDatabase } from './services.ts';

/** `first` and every migration after it: what must go down to reach the state before it. */
export async function migrationsFrom(first: string): Promise<string[]> {
  const names = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
  if (!names.includes(first)) throw new Error(`no migration named ${first}`);
  return names.slice(names.indexOf(first));
}

/** A database of `engine` as it stood before migration `first`; dropped (or removed) and closed when the test ends. */
export async function databaseBefore(t: ExecutionContext, engine: 'mysql' | 'sqlite', first: string): Promise<Db> {
  let db: Db;
  if (engine === 'mysql') {
    const fresh = await freshDatabase();
    t.teardown(fresh.drop);
    db = createDb({ databaseUrl: fresh.url, sqliteFile: '' });
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-migration-'));
    t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
    db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'gateway.db') });
  }
  t.teardown(() => db.destroy());
  await migrate(db);
  const later = await migrationsFrom(first);
  for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
  return db;
}
