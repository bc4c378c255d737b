// Run-history paging at scale (issue 10: "first and last page each answer in under 50 ms on
// MariaDB with 100,000 predictions in one tenant"). Not a test: it prints figures.
//
//   TEST_MYSQL_URL=mysql://root@127.0.0.1:3306/mediagate_ci node test/bench/run-history.ts [rows]
//
// Seeds `rows` (default 100,000) predictions for one user, plus 10% as many for a second user and
// for a team the first user belongs to (rows the personal index must skip), into a fresh database,
// then times getRunHistory through the whole HTTP stack (server.inject: auth, validation, owner
// resolution, handler, serialisation): the first and the last page, with and without the count,
// and a search page, then the database part alone. Each figure is the median of 15 requests after 3 warm-up ones.
import { performance } from 'node:perf_hooks';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { listHistory } from '../../db/run-history.ts';
import { countVisible } from '../../db/history-count.ts';

const ROWS = Number(process.argv[2] ?? 100_000);
const PAGE_SIZE = 20;
const BATCH = 2_000;

const gw = await startGateway({ queue: 'memory' });
try {
  const a = await newAccount(gw);
  const b = await newAccount(gw);
  const team = await gw.server.inject({ method: 'POST', url: '/app/teams', headers: { authorization: `Bearer ${a.session}` }, payload: { name: 'bench' } });
  const teamId = (team.result as { id: number }).id;

  const seedStart = performance.now();
  const start = Date.parse('2025-01-01T00:00:00Z');
  const seed = async (userId: number, teamIdOf: number | null, n: number, base = start) => {
    for (let done = 0; done < n; done += BATCH) {
      const rows = [];
      for (let i = done; i < Math.min(n, done + BATCH); i++) {
        const at = base + i * (base === start ? 1_000 : 1);
        const id = newPredictionId(at);
        rows.push({
          id, user_id: userId, team_id: teamIdOf, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'completed', is_test: false,
          input: JSON.stringify({ prompt: `bench prompt ${i}`, width: 512, height: 512 }), outputs: JSON.stringify([`outputs/${id}/0.png`]),
          nsfw: '[false]', price: 5, created_at: at, started_at: at, completed_at: at + 900, updated_at: at + 900,
        });
      }
      await gw.app.db('predictions').insert(rows);
    }
  };
  await seed(a.userId, null, ROWS);
  await seed(b.userId, null, Math.ceil(ROWS / 10));
  await seed(a.userId, teamId, Math.ceil(ROWS / 10));
  await gw.app.db.raw('ANALYZE TABLE predictions');
  console.log(`seeded ${ROWS} personal predictions (+${Math.ceil(ROWS / 10)} of another user, +${Math.ceil(ROWS / 10)} of a team) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const lastPage = Math.ceil(ROWS / PAGE_SIZE);
  const time = async (label: string, url: string, check: (body: { items: unknown[]; total: number | null }) => boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < 18; i++) {
      const t0 = performance.now();
      const res = await gw.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${a.session}` } });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200 || !check(JSON.parse(res.payload))) throw new Error(`${label}: ${res.statusCode} ${res.payload.slice(0, 300)}`);
      if (i >= 3) samples.push(ms);
    }
    samples.sort((x, y) => x - y);
    console.log(`${label.padEnd(48)} median ${samples[Math.floor(samples.length / 2)]!.toFixed(1).padStart(6)} ms   max ${samples.at(-1)!.toFixed(1).padStart(6)} ms`);
  };
  const full = (n: number) => (body: { items: unknown[] }) => body.items.length === n;
  const lastSize = ROWS - (lastPage - 1) * PAGE_SIZE;
  await time('first page, with count', `/app/get_run_history_data?page=1&page_size=${PAGE_SIZE}`, full(PAGE_SIZE));
  await time(`last page (${lastPage}), with count`, `/app/get_run_history_data?page=${lastPage}&page_size=${PAGE_SIZE}`, full(lastSize));
  await time('first page, include_count=false', `/app/get_run_history_data?page=1&page_size=${PAGE_SIZE}&include_count=false`, full(PAGE_SIZE));
  await time(`last page (${lastPage}), include_count=false`, `/app/get_run_history_data?page=${lastPage}&page_size=${PAGE_SIZE}&include_count=false`, full(lastSize));
  await time(`middle page (${Math.ceil(lastPage / 2)}), with count`, `/app/get_run_history_data?page=${Math.ceil(lastPage / 2)}&page_size=${PAGE_SIZE}`, full(PAGE_SIZE));
  await time('team history, first page', `/app/get_run_history_data?team_id=${teamId}&page=1&page_size=${PAGE_SIZE}`, full(PAGE_SIZE));
  // the database part alone (db/run-history.ts listHistory), without HTTP
  const dbTime = async (label: string, page: number, count: boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < 18; i++) {
      const t0 = performance.now();
      await listHistory(gw.app.db, { userId: a.userId, teamId: null }, {}, { page, pageSize: PAGE_SIZE, count }, gw.app.clock());
      if (i >= 3) samples.push(performance.now() - t0);
    }
    samples.sort((x, y) => x - y);
    console.log(`${label.padEnd(48)} median ${samples[Math.floor(samples.length / 2)]!.toFixed(1).padStart(6)} ms   max ${samples.at(-1)!.toFixed(1).padStart(6)} ms`);
  };
  await dbTime('db only: first page, with count', 1, true);
  await dbTime('db only: last page, with count', lastPage, true);
  await dbTime('db only: first page, no count', 1, false);
  // the count alone: the counter (migration 2801) against COUNT(*) over the owner's index entries, as before it
  const countTime = async (label: string, fn: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < 18; i++) {
      const t0 = performance.now();
      await fn();
      if (i >= 3) samples.push(performance.now() - t0);
    }
    samples.sort((x, y) => x - y);
    console.log(`${label.padEnd(48)} median ${samples[Math.floor(samples.length / 2)]!.toFixed(1).padStart(6)} ms   max ${samples.at(-1)!.toFixed(1).padStart(6)} ms`);
  };
  const owner = { userId: a.userId, teamId: null };
  const viaCounter = await countVisible(gw.app.db, owner, gw.app.clock());
  const viaIndex = Number((await gw.app.db('predictions').where({ user_id: a.userId }).whereNull('team_id').whereNull('deleted_at').count({ n: '*' }).first())!.n);
  if (viaCounter !== viaIndex || viaCounter !== ROWS) throw new Error(`count: counter ${viaCounter}, COUNT(*) ${viaIndex}, seeded ${ROWS}`);
  const plainCount = (db: typeof gw.app.db) => db('predictions').where({ user_id: a.userId }).whereNull('team_id').whereNull('deleted_at').count({ n: '*' }).first();
  // interleaved, so both see the same load; then the index entries each reads (Handler_read_*, one connection), which no load changes
  const interleaved = { counter: [] as number[], count: [] as number[] };
  for (let i = 0; i < 43; i++) {
    let t0 = performance.now();
    await countVisible(gw.app.db, owner, gw.app.clock());
    const c = performance.now() - t0;
    t0 = performance.now();
    await plainCount(gw.app.db);
    if (i >= 3) { interleaved.counter.push(c); interleaved.count.push(performance.now() - t0); }
  }
  for (const [label, xs] of [['db only: count by the counter (2801), interleaved', interleaved.counter], ['db only: COUNT(*) over the index, interleaved', interleaved.count]] as const) {
    xs.sort((x, y) => x - y);
    console.log(`${label.padEnd(48)} median ${xs[Math.floor(xs.length / 2)]!.toFixed(1).padStart(6)} ms   max ${xs.at(-1)!.toFixed(1).padStart(6)} ms`);
  }
  const readsOf = async (fn: (db: typeof gw.app.db) => Promise<unknown>) => gw.app.db.transaction(async (trx) => {
    const status = async () => Object.fromEntries(((await trx.raw("SHOW SESSION STATUS LIKE 'Handler_read%'"))[0] as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, Number(r.Value)]));
    const before = await status();
    await fn(trx as unknown as typeof gw.app.db);
    const after = await status();
    return Object.keys(after).reduce((n, k) => n + (after[k]! - (before[k] ?? 0)), 0);
  });
  const base = await readsOf(async () => undefined);
  console.log(`index entries/rows read (Handler_read_*): counter ${await readsOf((db) => countVisible(db, owner, gw.app.clock())) - base}, COUNT(*) ${await readsOf(plainCount) - base}`);
  // 5,000 new predictions after the checkpoint: the tail the counter counts live until a read moves it
  // (created in the last minute, as submits would be: the counter moves its checkpoint only past rows older than SETTLE_MS)
  await seed(a.userId, null, 5_000, gw.app.clock() - 60_000);
  const withTail = await countVisible(gw.app.db, owner, gw.app.clock());
  if (withTail !== ROWS + 5_000) throw new Error(`count with the tail: ${withTail}, expected ${ROWS + 5_000}`);
  await countTime('db only: counter with a fresh 5,000-row tail', () => countVisible(gw.app.db, owner, gw.app.clock()));
  await time('search q=prompt 99999, first page', `/app/get_run_history_data_by_search?q=prompt%2099999&page_size=${PAGE_SIZE}`, () => true);
} finally {
  await gw.stop();
}
