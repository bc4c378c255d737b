// The fixed-window counter (db/rate-limits.ts hitWindow) answers each hit's count in one round
// trip: concurrent hits of one bucket get every count from 1 to n exactly once, a new window
// starts again at 1, and a hit stamped with an older window (a process whose clock lags) counts
// into the newer one. Several buckets are counted in one statement, each answered in the order
// asked. On MariaDB and on SQLite (RETURNING).
import test from 'ava';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { createDb, migrate, type Db } from '../../db/knex.ts';
import { hitWindow, hitWindows } from '../../db/rate-limits.ts';
import { freshDatabase } from '../helpers/services.ts';

async function withDb(kind: 'mysql' | 'sqlite', run: (db: Db) => Promise<void>): Promise<void> {
  if (kind === 'mysql') {
    const database = await freshDatabase(undefined, { migrated: true });
    const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
    try {
      await migrate(db);
      await run(db);
    } finally {
      await db.destroy();
      await database.drop();
    }
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-rl-'));
  const db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'db.sqlite') });
  try {
    await migrate(db);
    await run(db);
  } finally {
    await db.destroy();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

for (const kind of ['mysql', 'sqlite'] as const) {
  test(`${kind}: concurrent hits get 1..n once each; a new window starts at 1; a lagging clock counts into the newer window`, async (t) => {
    await withDb(kind, async (db) => {
      const counts = await Promise.all(Array.from({ length: 60 }, () => hitWindow(db, 'bucket-a', 1_000)));
      t.deepEqual([...counts].sort((a, b) => a - b), Array.from({ length: 60 }, (_, i) => i + 1));
      // another bucket is its own
      t.is(await hitWindow(db, 'bucket-b', 1_000), 1);
      // the next window resets
      t.is(await hitWindow(db, 'bucket-a', 2_000), 1);
      t.is(await hitWindow(db, 'bucket-a', 2_000), 2);
      // an older window's hit (a lagging clock) counts into the newer window instead of resetting it
      t.is(await hitWindow(db, 'bucket-a', 1_000), 3);
      // other statements in between on the same connection do not leak into the count
      await db('rate_limits').where({ bucket: 'nothing' }).first();
      t.is(await hitWindow(db, 'bucket-c', 2_000), 1);
    });
  });
}

for (const kind of ['mysql', 'sqlite'] as const) {
  test(`${kind}: several buckets counted in one statement answer each its own count, in the order asked`, async (t) => {
    await withDb(kind, async (db) => {
      let statements = 0;
      db.on('query', () => { statements++; });
      t.deepEqual(await hitWindows(db, ['gen-user:1', 'gen-key:9'], 1_000), [1, 1]);
      t.deepEqual(await hitWindows(db, ['gen-user:1', 'gen-key:9'], 1_000), [2, 2]);
      t.deepEqual(await hitWindows(db, ['gen-key:9'], 1_000), [3]);
      t.deepEqual(await hitWindows(db, ['gen-key:9', 'gen-user:1', 'gen-key:8'], 1_000), [4, 3, 1]);
      // concurrent requests sharing one bucket: every count from 1 to n once
      const counts = await Promise.all(Array.from({ length: 30 }, (_, i) => hitWindows(db, [`gen-key:${100 + i}`, 'gen-user:2'], 1_000)));
      t.deepEqual(counts.map(([k]) => k), counts.map(() => 1));
      t.deepEqual(counts.map(([, u]) => u!).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 1));
      // a new window starts again at 1 for each bucket
      t.deepEqual(await hitWindows(db, ['gen-user:1', 'gen-key:9'], 2_000), [1, 1]);
      // a bucket named twice counts twice
      t.deepEqual((await hitWindows(db, ['dup', 'dup'], 1_000)).sort(), [1, 2]);
      // MariaDB's key is case-insensitive: another spelling of a stored bucket gets that row's count
      if (kind === 'mysql') t.deepEqual(await hitWindows(db, ['GEN-USER:1', 'gen-key:9'], 2_000), [2, 2]);
      else t.deepEqual(await hitWindows(db, ['GEN-USER:1', 'gen-key:9'], 2_000), [1, 2]);
      // one statement per call (the duplicate: two), plus, on MariaDB, the server's version asked once
      t.is(statements, 4 + 30 + 1 + 2 + 1 + (kind === 'mysql' ? 1 : 0));
    });
  });
}
