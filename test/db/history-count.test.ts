// The run history's unfiltered count (db/history-count.ts, migration 2801) on MariaDB: the
// counter plus the tail since its checkpoint equals COUNT(*) of the visible rows after every kind
// of change: rows before and after the checkpoint, bulk deletes on both sides of it (in parallel
// with reads that move the checkpoint), per owner (personal and team apart).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { ADVANCE_AFTER, countVisible, SETTLE_MS } from '../../db/history-count.ts';
import { ownerKey } from '../../lib/caller.ts';
import type { Owner } from '../../db/owner.ts';

let gw: TestGateway;
let a: Account;
let teamId: number;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  a = await newAccount(gw);
  teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'counted' } })).body.id;
});
test.after.always(async () => {
  await gw?.stop();
});

async function seed(owner: Owner, n: number, from: number, step: number): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < n; done += 1000) {
    const rows = [];
    for (let i = done; i < Math.min(n, done + 1000); i++) {
      const at = from + i * step;
      const id = newPredictionId(at);
      ids.push(id);
      rows.push({
        id, user_id: owner.userId, team_id: owner.teamId, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'completed', is_test: false,
        input: '{}', outputs: '[]', nsfw: '[]', price: 5, created_at: at, started_at: at, completed_at: at, updated_at: at,
      });
    }
    await gw.app.db('predictions').insert(rows);
  }
  return ids;
}

async function exact(owner: Owner): Promise<number> {
  const row = await gw.app.db('predictions').where(owner.teamId === null ? { user_id: owner.userId, team_id: null } : { team_id: owner.teamId })
    .whereNull('deleted_at').count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row!.n);
}

async function historyTotal(query: Record<string, string | number> = {}): Promise<number | null> {
  const res = await callOperation<{ total: number | null }>(gw, 'getRunHistory', { as: a.session, query: { page_size: 1, ...query } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.total;
}

test.serial('the count equals COUNT(*) across the checkpoint, bulk deletes on both sides and parallel reads', async (t) => {
  const me: Owner = { userId: a.userId, teamId: null };
  const team: Owner = { userId: a.userId, teamId };
  const now = gw.app.clock();
  // old rows, more than ADVANCE_AFTER: the first read moves the checkpoint past them
  const old = await seed(me, ADVANCE_AFTER + 500, now - 30 * 86_400_000, 1_000);
  await seed(team, 30, now - 86_400_000, 1_000);
  t.is(await historyTotal(), ADVANCE_AFTER + 500);
  const counter = await gw.app.db('prediction_history_counts').where({ owner_key: ownerKey(me) }).first();
  t.truthy(counter, 'the first read created the counter');
  t.true(Number(counter.checkpoint) > 0 && Number(counter.checkpoint) <= now - SETTLE_MS + 60_000, 'and moved its checkpoint');
  t.is(Number(counter.visible), ADVANCE_AFTER + 500);
  t.is(await historyTotal({ team_id: teamId }), 30);

  // new rows land in the tail
  const fresh = await seed(me, 40, now - 30_000, 10);
  t.is(await historyTotal(), ADVANCE_AFTER + 540);

  // bulk deletes before and after the checkpoint, in parallel with reads
  const batches = [old.slice(0, 50), old.slice(50, 100), fresh.slice(0, 20), [...old.slice(100, 110), ...fresh.slice(20, 25)]];
  const reads: Array<Promise<unknown>> = [];
  const deletes = batches.map(async (ids) => {
    reads.push(countVisible(gw.app.db, me, gw.app.clock()));
    const res = await callOperation<{ deleted: string[] }>(gw, 'bulkDeleteUsageLogs', { as: a.session, body: { ids } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  await Promise.all([...deletes, ...reads]);
  // deleting one twice changes nothing
  await callOperation(gw, 'bulkDeleteUsageLogs', { as: a.session, body: { ids: old.slice(0, 5) } });
  const expected = ADVANCE_AFTER + 540 - 100 - 20 - 15;
  t.is(await exact(me), expected);
  t.is(await historyTotal(), expected);
  t.is(await countVisible(gw.app.db, me, gw.app.clock()), expected);
  // the team's count never moved
  t.is(await historyTotal({ team_id: teamId }), 30);
  // a filter counts the matches, not the counter
  t.is(await historyTotal({ include_count: 'false' }), null);
});

test.serial('a read much later moves the checkpoint past the tail, and the count stays exact', async (t) => {
  const me: Owner = { userId: a.userId, teamId: null };
  const before = await exact(me);
  await seed(me, ADVANCE_AFTER + 10, gw.app.clock() - 60_000, 1);
  // far ahead of the rows: they are settled, and the next read moves the checkpoint past them
  const later = gw.app.clock() + 2 * SETTLE_MS;
  t.is(await countVisible(gw.app.db, me, later), before + ADVANCE_AFTER + 10);
  const counter = await gw.app.db('prediction_history_counts').where({ owner_key: ownerKey(me) }).first();
  t.is(Number(counter.checkpoint), later - SETTLE_MS);
  t.is(Number(counter.visible), before + ADVANCE_AFTER + 10);
  t.is(await countVisible(gw.app.db, me, later), await exact(me));
});
