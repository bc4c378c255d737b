// `npm run bench:rate-limit`: the gateway's database rate-limit counter (db/rate-limits.ts,
// `hitWindow`) against rate-limiter-flexible's RateLimiterMySQL on the same MariaDB, in one run,
// alternating, twice each. Both count across API processes through the database; the question the
// operations issue asks is whether the maintained library is slower than our own code. It is a
// benchmark, not a test: it prints hits per second and latency percentiles per phase.
//
// Two workloads: many keys (50 callers over 1,000 buckets, like many API keys at once) and one hot
// key (50 callers on one bucket, like one account at its limit: row-lock contention). Each caller
// hits sequentially; the pool is the gateway's default (10 connections).
//
// Tuning: BENCH_DURATION seconds per phase (5), BENCH_CONNECTIONS callers (50),
// BENCH_MYSQL_URL (defaults to TEST_MYSQL_URL, else mysql://root@127.0.0.1:3306).
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
const { createDb, migrate } = await import('../../db/knex.ts');
const { hitWindow } = await import('../../db/rate-limits.ts');
const { freshDatabase } = await import('../helpers/services.ts');
const { percentile, round } = await import('./lib.ts');

// rate-limiter-flexible is CommonJS; its types are not needed for a comparison script.
const require = createRequire(import.meta.url);
const { RateLimiterMySQL } = require('rate-limiter-flexible') as {
  RateLimiterMySQL: new (opts: Record<string, unknown>, cb?: (err?: Error) => void) => { consume(key: string, points?: number): Promise<unknown> };
};

const DURATION_MS = Number(process.env.BENCH_DURATION ?? 5) * 1000;
const CALLERS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WINDOW_SECONDS = 60;

type Hit = (bucket: string) => Promise<void>;

interface Phase { name: string; workload: string; hitsPerSecond: number; p50: number; p99: number; errors: number }

async function measure(name: string, workload: string, hit: Hit, bucketOf: (caller: number, n: number) => string): Promise<Phase> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + DURATION_MS;
  await Promise.all(Array.from({ length: CALLERS }, async (_, caller) => {
    for (let n = 0; performance.now() < end; n += 1) {
      const t0 = performance.now();
      try {
        await hit(bucketOf(caller, n));
      } catch (err) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the points run out: we give it
        // more points than any phase can use, so anything here is a real error.
        errors += 1;
        if (errors === 1) console.error(`${name}: ${(err as Error).message ?? String(err)}`);
      }
      latencies.push(performance.now() - t0);
    }
  }));
  latencies.sort((a, b) => a - b);
  return {
    name,
    workload,
    hitsPerSecond: round(latencies.length / (DURATION_MS / 1000), 0),
    p50: round(percentile(latencies, 50), 2),
    p99: round(percentile(latencies, 99), 2),
    errors,
  };
}

const database = await freshDatabase();
const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
try {
  await migrate(db);
  const dbName = new URL(database.url).pathname.slice(1);
  const flexible = await new Promise<InstanceType<typeof RateLimiterMySQL>>((resolve, reject) => {
    const limiter = new RateLimiterMySQL({
      storeClient: db,
      storeType: 'knex',
      dbName,
      tableName: 'rlflx',
      points: 1_000_000_000,
      duration: WINDOW_SECONDS,
      clearExpiredByTimeout: false,
    }, (err?: Error) => (err ? reject(err) : resolve(limiter)));
  });

  const ours: Hit = async (bucket) => {
    const windowStart = Math.floor(Date.now() / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
    await hitWindow(db, bucket, windowStart);
  };
  const theirs: Hit = async (bucket) => {
    await flexible.consume(bucket, 1);
  };
  const workloads: Array<[string, (caller: number, n: number) => string]> = [
    ['1,000 keys', (caller, n) => `k:${(caller * 7919 + n) % 1000}`],
    ['1 hot key', () => 'k:hot'],
  ];

  const phases: Phase[] = [];
  for (const [workload, bucketOf] of workloads) {
    // warm both (table creation, connections, buffer pool), then alternate twice
    await measure('warm-up', workload, ours, bucketOf);
    await measure('warm-up', workload, theirs, bucketOf);
    for (let round = 0; round < 2; round += 1) {
      phases.push(await measure('db/rate-limits.ts hitWindow', workload, ours, bucketOf));
      phases.push(await measure('rate-limiter-flexible RateLimiterMySQL', workload, theirs, bucketOf));
    }
  }

  console.log(`\nRate-limit counters on MariaDB: ${CALLERS} concurrent callers, ${DURATION_MS / 1000} s per phase, pool of 10\n`);
  console.log('| counter | workload | hits/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const p of phases) console.log(`| ${p.name} | ${p.workload} | ${p.hitsPerSecond} | ${p.p50} | ${p.p99} | ${p.errors} |`);
  for (const [workload] of workloads) {
    const rate = (name: string) => phases.filter((p) => p.workload === workload && p.name === name).map((p) => p.hitsPerSecond);
    const a = rate('db/rate-limits.ts hitWindow');
    const b = rate('rate-limiter-flexible RateLimiterMySQL');
    const ratio = b.reduce((s, v) => s + v, 0) / a.reduce((s, v) => s + v, 0);
    console.log(`\n${workload}: rate-limiter-flexible runs at ${round(ratio, 2)}x the hits/s of hitWindow`);
  }
} finally {
  await db.destroy();
  await database.drop();
}
