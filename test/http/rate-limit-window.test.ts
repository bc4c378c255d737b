// The fixed-window counter (db/rate-limits.ts hitWindow) answers each hit's count in one round
// trip: concurrent hits of one bucket get every count from 1 to n exactly once, a new window
// starts again at 1, and a hit stamped with an older window (a process whose clock lags) counts
// into the newer one. On MariaDB (the count read back as LAST_INSERT_ID) and on SQLite (RETURNING).
import test from 'ava';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { createDb, migrate, type Db } from '../../db/knex.ts';
import { hitWindow } from '../../db/rate-limits.ts';
import { freshDatabase } from '../helpers/services.ts';

async function withDb(kind: 'mysql' | 'sqlite', run: (db: Db) => Promise<void>): Promise<void> {
  if (kind === 'mysql') {
    const database = await freshDatabase();
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
