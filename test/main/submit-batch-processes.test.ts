// Group commit of submits (the store's selector, db/store/index.ts) with real processes: two `ROLE=api` processes
// (`node main.ts`) on one MariaDB database, each grouping its own submits of one wallet, while
// their batches queue on that wallet's row lock. Parallel production submits over HTTP through
// both must admit exactly what the account's unfinished-predictions limit and the wallet's credit
// allow, and the ledger must stay exact, the hold rows forming one sequence.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { waitFor } from '../helpers/services.ts';
import { freePort, spawnGateway } from '../helpers/processes.ts';
import type { GatewayProcess } from '../helpers/processes.ts';
import { creditWallet } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const LIMIT = 25;

let gw: TestGateway;
const procs: Array<{ p: GatewayProcess; url: string }> = [];
test.before(async () => {
  gw = await startGateway({ env: { GENERATE_CONCURRENT_PER_ACCOUNT: String(LIMIT) } });
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const p = spawnGateway({ ...gw.env, ROLE: 'api', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    const url = `http://127.0.0.1:${port}`;
    procs.push({ p, url });
    await waitFor(async () => (await fetch(`${url}/livez`).catch(() => null))?.ok, { what: `API process ${i} up`, timeoutMs: 60_000 });
  }
});
test.after.always(async () => {
  for (const { p } of procs) await p.kill('SIGTERM');
  await gw?.stop();
});

/** n submits at once, alternating between the two processes; their status codes and bodies. */
async function burst(key: string, n: number): Promise<Array<{ status: number; body: { price?: number; detail?: string; code?: string } }>> {
  return Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await fetch(`${procs[i % 2]!.url}/api/v1/${MODEL}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `lighthouse ${i}`, width: 64, height: 64 }) });
    return { status: res.status, body: await res.json() as { price?: number; detail?: string; code?: string } };
  }));
}

async function holdSequence(userId: number): Promise<Array<[number, number]>> {
  const rows = await gw.app.db('credit_transactions').where({ user_id: userId, kind: 'hold' }).orderBy('id').select('balance_after', 'held_after') as Array<Record<string, unknown>>;
  return rows.map((r) => [Number(r.balance_after), Number(r.held_after)]);
}

test.serial('parallel submits through two API processes admit exactly the account limit of unfinished predictions', async (t) => {
  const acct = await newAccount(gw, 1_000_000);
  const answers = await burst(acct.liveKey, 100);
  const ok = answers.filter((a) => a.status === 200);
  t.is(ok.length, LIMIT, answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`).join('\n'));
  for (const a of answers.filter((x) => x.status !== 200)) {
    t.is(a.status, 429);
    t.regex(a.body.detail ?? '', new RegExp(`this account already has ${LIMIT} unfinished predictions`));
  }
  const price = ok[0]!.body.price!;
  t.deepEqual(await holdSequence(acct.userId), Array.from({ length: LIMIT }, (_, i) => [1_000_000 - price * (i + 1), price * (i + 1)] as [number, number]));
  await assertLedger(t, gw.app.db);
});

test.serial('parallel submits through two API processes with credit for k of them: exactly k are held, the rest 402', async (t) => {
  const probe = await newAccount(gw, 1_000_000);
  const price = (await burst(probe.liveKey, 1))[0]!.body.price!;
  const acct = await newAccount(gw, 0);
  const k = 17;
  await gw.app.db.transaction((trx) => creditWallet(trx, { userId: acct.userId, teamId: null }, price * k, 'grant', 'test credit', Date.now()));
  const answers = await burst(acct.liveKey, 60);
  t.is(answers.filter((a) => a.status === 200).length, k);
  t.deepEqual(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.code}`), Array.from({ length: 60 - k }, () => '402 insufficient_credit'));
  const w = await gw.app.db('users').where({ id: acct.userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
  t.deepEqual([Number(w.balance), Number(w.held)], [0, price * k]);
  t.deepEqual(await holdSequence(acct.userId), Array.from({ length: k }, (_, i) => [price * (k - i - 1), price * (i + 1)] as [number, number]));
  await assertLedger(t, gw.app.db);
});
