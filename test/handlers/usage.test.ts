// Usage (GET /app/usage, GET /auth/admin_usage) on MariaDB: thousands of runs and their ledger
// rows inserted in bulk, then every grouping's sums equal the ledger's charges less refunds and
// the counted predictions; another account's rows never show; a team's usage; a sandbox key's;
// the admin view across accounts; by key, a wallet never names the keys of others' runs it paid
// for. The app clock is fixed, so "today" is known.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29, 12);
const MODELS = ['canvas-v1-fast-text-to-image', 'aurora-v3-pro-text-to-video', 'chime-v1-fast-text-to-audio'];

let gw: TestGateway;
let a: Account;
let b: Account;
let aKeyId: number;
let teamId: number;
test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => NOW });
  a = await newAccount(gw, 100);
  b = await newAccount(gw, 100);
  aKeyId = Number((await gw.app.db('api_keys').where({ user_id: a.userId, is_test: false }).first()).id);
  teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: a.session, body: { name: 'usage-team' } })).body.id;
});
test.after.always(async () => {
  await gw?.stop();
});

interface Usage { from: string; to: string; rows: Array<Record<string, unknown> & { runs: number; failed_runs: number; sandbox_runs: number; spend: number }>; totals: { runs: number; failed_runs: number; sandbox_runs: number; spend: number } }

/** `n` runs of one owner over the last `days` days, with their ledger rows (a charge for each completed run, a refund for every 50th). */
async function seed(userId: number, team: number | null, n: number, days: number, keyId: number | null): Promise<void> {
  for (let done = 0; done < n; done += 500) {
    const preds = [];
    const ledger = [];
    for (let i = done; i < Math.min(n, done + 500); i++) {
      const at = NOW - (i % days) * DAY - (i % 97) * 60_000;
      const id = newPredictionId(at + i);
      const failed = i % 11 === 0;
      const sandbox = i % 13 === 0;
      const price = 5 + (i % 7);
      preds.push({
        id, user_id: userId, team_id: team, api_key_id: i % 3 === 0 ? null : keyId, model: MODELS[i % 3], status: failed ? 'failed' : 'completed', is_test: sandbox,
        input: '{}', price: sandbox ? 0 : price, source: i % 3 === 0 ? 'dashboard' : 'api', created_at: at, updated_at: at, ...(i % 2 ? { upstream_name: 'acme' } : {}),
      });
      const base = { user_id: userId, team_id: team, held_change: 0, prediction_id: id, ref: '', description: 'seed', balance_after: 0, held_after: 0 };
      if (sandbox) continue;
      ledger.push({ ...base, kind: 'hold', amount: 0, held_change: price, created_at: at });
      if (failed) ledger.push({ ...base, kind: 'release', amount: 0, held_change: -price, created_at: at + 1000 });
      else ledger.push({ ...base, kind: 'prediction', amount: -price, held_change: -price, created_at: at + 1000 });
      if (!failed && i % 50 === 1) ledger.push({ ...base, kind: 'refund', amount: 2, created_at: at + 2000 });
    }
    await gw.app.db('predictions').insert(preds);
    await gw.app.db('credit_transactions').insert(ledger);
  }
}

/** The ledger's spend of an owner in [from, to): charges less refunds. */
async function ledgerSpend(owner: { userId: number | null; teamId: number | null }, from: number, to: number): Promise<number> {
  const q = gw.app.db('credit_transactions').whereIn('kind', ['prediction', 'refund']).where('created_at', '>=', from).andWhere('created_at', '<', to);
  if (owner.userId !== null) q.where({ user_id: owner.userId }).whereNull('team_id');
  if (owner.teamId !== null) q.where({ team_id: owner.teamId });
  const row = await q.sum({ s: 'amount' }).first();
  return -Number(row?.s ?? 0);
}

async function predictionCount(where: (q: ReturnType<typeof gw.app.db>) => void, from: number, to: number): Promise<{ runs: number; failed: number; sandbox: number }> {
  const base = () => { const q = gw.app.db('predictions').where('created_at', '>=', from).andWhere('created_at', '<', to); where(q); return q; };
  const c = async (q: ReturnType<typeof gw.app.db>) => Number((await q.count({ n: '*' }).first())?.n ?? 0);
  return { runs: await c(base().where({ is_test: false })), failed: await c(base().where({ is_test: false, status: 'failed' })), sandbox: await c(base().where({ is_test: true })) };
}

test.serial('personal usage at volume equals the ledger in every grouping, and shows nothing of another account', async (t) => {
  await seed(a.userId, null, 4000, 40, aKeyId);
  await seed(b.userId, null, 1000, 40, null);
  const from = '2026-10-31';
  const to = '2026-11-29';
  const fromMs = Date.UTC(2026, 9, 31);
  const toMs = Date.UTC(2026, 10, 30);
  const spend = await ledgerSpend({ userId: a.userId, teamId: null }, fromMs, toMs);
  const counts = await predictionCount((q) => q.where({ user_id: a.userId }).whereNull('team_id'), fromMs, toMs);
  t.true(spend > 10_000, String(spend));
  for (const groupBy of ['day', 'model', 'api_key', 'source', 'day,model', 'model,api_key']) {
    const started = performance.now();
    const r = await callOperation<Usage>(gw, 'getUsage', { as: a.session, query: { from, to, group_by: groupBy } });
    t.log(`group_by=${groupBy}: ${r.body.rows.length} rows over ${counts.runs + counts.sandbox} runs in ${Math.round(performance.now() - started)} ms`);
    t.is(r.status, 200, r.raw.payload);
    t.is(r.body.totals.spend, spend, groupBy);
    t.deepEqual([r.body.totals.runs, r.body.totals.failed_runs, r.body.totals.sandbox_runs], [counts.runs, counts.failed, counts.sandbox], groupBy);
    t.is(r.body.rows.reduce((s, x) => s + x.spend, 0), spend, groupBy);
    t.is(r.body.rows.reduce((s, x) => s + x.runs, 0), counts.runs, groupBy);
  }
  const byDay = (await callOperation<Usage>(gw, 'getUsage', { as: a.session, query: { from, to } })).body;
  t.is(byDay.rows.length, 30);
  t.is(byDay.rows[0]!.day, from);
  t.is(byDay.rows.at(-1)!.day, to);
  // one day checked on its own against the ledger
  const day = byDay.rows.find((r) => r.day === '2026-11-20')!;
  t.is(day.spend, await ledgerSpend({ userId: a.userId, teamId: null }, Date.UTC(2026, 10, 20), Date.UTC(2026, 10, 21)));
  const byKey = (await callOperation<Usage>(gw, 'getUsage', { as: a.liveKey, query: { from, to, group_by: 'api_key' } })).body;
  t.deepEqual(byKey.rows.map((r) => [r.api_key_id, r.api_key_name]), [[null, null], [aKeyId, 'live']]);
  const byModel = (await callOperation<Usage>(gw, 'getUsage', { as: a.session, query: { from, to, group_by: 'model' } })).body;
  t.deepEqual(byModel.rows.map((r) => r.model), [...MODELS].sort());
  // the default range: the last 30 days up to today
  const dflt = (await callOperation<Usage>(gw, 'getUsage', { as: a.session })).body;
  t.deepEqual([dflt.from, dflt.to, dflt.totals.spend], [from, to, spend]);
  // b sees its own only
  const bSpend = await ledgerSpend({ userId: b.userId, teamId: null }, fromMs, toMs);
  t.is((await callOperation<Usage>(gw, 'getUsage', { as: b.session, query: { from, to } })).body.totals.spend, bSpend);
  t.not(bSpend, spend);
});

test.serial('a team\'s usage is the team wallet\'s; a sandbox key sees its sandbox runs and no spend', async (t) => {
  await seed(a.userId, teamId, 600, 5, null);
  const from = '2026-11-25';
  const to = '2026-11-29';
  const fromMs = Date.UTC(2026, 10, 25);
  const toMs = Date.UTC(2026, 10, 30);
  const team = await callOperation<Usage>(gw, 'getUsage', { as: a.session, query: { from, to, team_id: teamId, group_by: 'model' } });
  t.is(team.status, 200, team.raw.payload);
  t.is(team.body.totals.spend, await ledgerSpend({ userId: null, teamId }, fromMs, toMs));
  t.is(team.body.totals.runs, (await predictionCount((q) => q.where({ team_id: teamId }), fromMs, toMs)).runs);
  // another account's team is 404
  t.is((await callOperation(gw, 'getUsage', { as: b.session, query: { team_id: teamId } })).status, 404);
  const sandbox = await callOperation<Usage>(gw, 'getUsage', { as: a.testKey, query: { from, to } });
  t.is(sandbox.status, 200);
  const counts = await predictionCount((q) => q.where({ user_id: a.userId }).whereNull('team_id'), fromMs, toMs);
  t.deepEqual([sandbox.body.totals.runs, sandbox.body.totals.sandbox_runs, sandbox.body.totals.spend, sandbox.body.totals.failed_runs], [counts.sandbox, counts.sandbox, 0, 0]);
});

test.serial('a reversed, too long or doubly grouped range is 422', async (t) => {
  t.is((await callOperation(gw, 'getUsage', { as: a.session, query: { from: '2026-11-02', to: '2026-11-01' } })).status, 422);
  t.is((await callOperation(gw, 'getUsage', { as: a.session, query: { from: '2024-01-01', to: '2026-01-01' } })).status, 422);
  t.is((await callOperation(gw, 'getUsage', { as: a.session, query: { group_by: 'day,day' } })).status, 422);
  t.is((await callOperation(gw, 'getUsage', { as: a.session, query: { group_by: 'provider' } })).status, 422);
  t.is((await callOperation(gw, 'getUsage', { as: a.session, query: { from: 'yesterday' } })).status, 422);
  // `to` left out is today: a `from` after it names `from`, the field the caller sent
  const future = await callOperation(gw, 'getUsage', { as: a.session, query: { from: '2999-01-01' } });
  t.is(future.status, 422);
  t.deepEqual((future.body as { detail: Array<{ loc: unknown[]; msg: string }> }).detail.map((d) => [d.loc, d.msg]), [[['query', 'from'], 'from must not be after today (to, when left out, is today, UTC)']]);
});

test.serial('the admin view sums every account by day, model and provider; only staff sessions read it', async (t) => {
  const from = '2026-10-31';
  const to = '2026-11-29';
  const fromMs = Date.UTC(2026, 9, 31);
  const toMs = Date.UTC(2026, 10, 30);
  const admin = await newAccount(gw, 0);
  await gw.app.db('users').where({ id: admin.userId }).update({ role: 'support' });
  const r = await callOperation<Usage>(gw, 'adminUsage', { as: admin.session, query: { from, to, group_by: 'model,provider' } });
  t.is(r.status, 200, r.raw.payload);
  t.is(r.body.totals.spend, await ledgerSpend({ userId: null, teamId: null }, fromMs, toMs));
  const all = await predictionCount(() => {}, fromMs, toMs);
  t.deepEqual([r.body.totals.runs, r.body.totals.failed_runs], [all.runs, all.failed]);
  t.deepEqual([...new Set(r.body.rows.map((x) => x.provider))], [null, 'acme']);
  t.is((await callOperation(gw, 'adminUsage', { as: a.session, query: { from, to } })).status, 403);
  t.is((await callOperation(gw, 'adminUsage', { as: a.liveKey, query: { from, to } })).status, 403);
});

test.serial('by key: a team names its members\' keys that ran for it; the runs it paid for others are one other_callers row with no key', async (t) => {
  const lead = await newAccount(gw, 0);
  const other = await newAccount(gw, 0);
  const leadKey = Number((await gw.app.db('api_keys').where({ user_id: lead.userId, is_test: false }).first()).id);
  const otherKey = Number((await gw.app.db('api_keys').where({ user_id: other.userId, is_test: false }).first()).id);
  await gw.app.db('api_keys').where({ id: otherKey }).update({ name: 'someone-elses-secret-key' });
  const team = (await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'paying-team' } })).body.id;
  const at = NOW - 3_600_000;
  const run = (userId: number, teamId: number | null, keyId: number, price: number, payer?: { payer_user_id: number; payer_team_id: number }) => ({
    id: newPredictionId(at + price), user_id: userId, team_id: teamId, api_key_id: keyId, model: MODELS[0], status: 'completed', is_test: false,
    input: '{}', price, source: payer ? 'studio' : 'api', created_at: at, updated_at: at, ...payer,
  });
  // the lead's own key used with team_id (the team's run), and another's run the team paid for (an owner_pays studio of the team)
  const own = run(lead.userId, team, leadKey, 10);
  const others = run(other.userId, null, otherKey, 7, { payer_user_id: lead.userId, payer_team_id: team });
  await gw.app.db('predictions').insert([own, others]);
  const charge = (p: { id: string; price: number }) => ({
    user_id: lead.userId, team_id: team, kind: 'prediction', amount: -p.price, held_change: 0, prediction_id: p.id, ref: '', description: 'seed', balance_after: 0, held_after: 0, created_at: at + 1000,
  });
  await gw.app.db('credit_transactions').insert([charge(own), charge(others)]);
  const day = '2026-11-29';
  type Row = { api_key_id: number | null; api_key_name: string | null; other_callers: boolean; runs: number; spend: number; day?: string };
  const r = await callOperation<{ rows: Row[]; totals: { runs: number; spend: number } }>(gw, 'getUsage', { as: lead.session, query: { from: day, to: day, team_id: team, group_by: 'api_key' } });
  t.is(r.status, 200, r.raw.payload);
  t.deepEqual(r.body.rows.map((x) => [x.api_key_id, x.api_key_name, x.other_callers, x.runs, x.spend]), [[leadKey, 'live', false, 1, 10], [null, null, true, 0, 7]]);
  t.deepEqual([r.body.totals.runs, r.body.totals.spend], [1, 17]);
  t.false(r.raw.payload.includes('someone-elses-secret-key'));
  const byDay = await callOperation<{ rows: Row[] }>(gw, 'getUsage', { as: lead.session, query: { from: day, to: day, team_id: team, group_by: 'day,api_key' } });
  t.deepEqual(byDay.body.rows.map((x) => [x.day, x.api_key_id, x.other_callers, x.spend]), [[day, leadKey, false, 10], [day, null, true, 7]]);
  // the other account sees its own key and run, and none of the team's spend
  const mine = await callOperation<{ rows: Row[] }>(gw, 'getUsage', { as: other.session, query: { from: day, to: day, group_by: 'api_key' } });
  t.deepEqual(mine.body.rows.map((x) => [x.api_key_id, x.api_key_name, x.other_callers, x.runs, x.spend]), [[otherKey, 'someone-elses-secret-key', false, 1, 0]]);
});
