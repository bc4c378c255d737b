// Group commit of production submits (README "No request lost, none charged twice"). Every priced
// submit takes its wallet's row lock for its whole transaction, and each submit alone pays its own
// round trips and its own COMMIT. Here, while one batch transaction is in flight in this process,
// further submits wait, whichever wallet pays them; when it finishes, everything that waited (up
// to 64 requests and 1 MiB of input) becomes the next batch, decided and written in one
// transaction that locks every wallet of the batch in one fixed order (db/batch.ts
// naturalBatcher, one per knex instance). No timer: at low load a submit finds no batch in flight
// and runs at the end of the current job, with whatever else that job submitted; under load a
// batch covers what arrived meanwhile, over one wallet or many. Each client still gets its answer
// only after the transaction holding its request committed. Batches of different processes (and
// of different knex instances in one process) queue on the wallet rows' locks as single submits
// do, taking them in the same order.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { InsufficientCreditError } from './errors.ts';
import { holdEach, lockWallets } from './wallet.ts';
import { walletKey } from './credit-grants.ts';
import type { Payer } from './wallet.ts';
import { insertSubmitted, limitsApply, submitPrediction, submittedRow, unfinishedCounts, withSnapshot } from './predictions.ts';
import type { ConcurrencyLimits, NewPrediction, SubmitOptions, SubmitOutcome, UnfinishedScope } from './predictions.ts';
import { withLockRetry } from './retry.ts';
import { eachAlone, naturalBatcher, perInstance } from './batch.ts';
import type { ItemOutcome } from './batch.ts';

/** One submit as submitPrediction takes it. */
export interface SubmitRequest {
  p: NewPrediction;
  now: number;
  limits?: ConcurrencyLimits;
  /** its row (submittedRow), when already built */
  row?: Record<string, unknown>;
}

/** What one submit of a batch gets: the outcome submitPrediction would return, or the error it would throw (402 insufficient credit). */
export type BatchAnswer = { outcome: SubmitOutcome } | { error: Error };

/**
 * Submits of one wallet or several (none with a key spend limit, an embed code or a studio: see
 * `batchable`; each paid by its own or its team's wallet), decided in arrival order and written in
 * one transaction: every wallet row of the batch locked and read (lockWallets: one statement per
 * wallet table, rows in the one fixed order, compareWallets, so two batches never deadlock), the
 * unfinished predictions counted once under those locks (per key and per account, each up to its
 * limit), then each request in turn, exactly as submitPrediction would decide it alone at that
 * point: 402 if the credit left in its wallet does not cover its price, else 429 if its key's or
 * its account's unfinished predictions (those counted plus the ones accepted before it in the
 * batch) are at the limit, else accepted. One UPDATE per wallet table for the sums accepted
 * (holdEach), one multi-row INSERT of their hold rows (each with its wallet's balance_after and
 * held_after), one of their prediction rows. Throws when the transaction failed (after the
 * lock-conflict retries) or a wallet of the batch has no row: then nothing of it was written, and
 * the caller runs each request alone.
 */
export async function submitBatch(db: Db, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
  return withLockRetry(() => db.transaction((trx) => decideAndWrite(trx, batch)));
}

const payerOf = (p: NewPrediction): Payer => ({ userId: p.userId, teamId: p.teamId ?? null });

async function decideAndWrite(trx: Knex, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
  const payers = batch.map(({ p }) => payerOf(p));
  const wallets = await lockWallets(trx, payers);
  for (const payer of payers) {
    if (!wallets.has(walletKey(payer))) throw new Error(`wallet ${payer.teamId === null ? `of user ${payer.userId}` : `of team ${payer.teamId}`} not found`);
  }
  // the counts the batch needs, each bounded by the largest limit any request applies to it
  const scopes: Array<{ scope: UnfinishedScope; bound: number }> = [];
  const scopeIndex = new Map<string, number>();
  const need = (name: string, scope: UnfinishedScope, bound: number) => {
    const i = scopeIndex.get(name);
    if (i === undefined) {
      scopeIndex.set(name, scopes.length);
      scopes.push({ scope, bound });
    } else scopes[i]!.bound = Math.max(scopes[i]!.bound, bound);
  };
  batch.forEach(({ p, limits }, i) => {
    if (!limits) return;
    if (limits.perKey > 0 && p.apiKeyId !== null) need(`key ${p.apiKeyId}`, { keyId: p.apiKeyId }, limits.perKey);
    if (limits.perAccount > 0) need(`account ${walletKey(payers[i]!)}`, { owner: payers[i]! }, limits.perAccount);
  });
  const counted = await unfinishedCounts(trx, scopes);
  const unfinished = (name: string) => {
    const i = scopeIndex.get(name);
    return i === undefined ? 0 : counted[i]!;
  };

  const balances = new Map([...wallets].map(([key, w]) => [key, w.balance]));
  const answers: BatchAnswer[] = [];
  const accepted: Array<{ at: number; row: Record<string, unknown>; req: SubmitRequest; payer: Payer }> = [];
  for (const [i, req] of batch.entries()) {
    const { p, limits } = req;
    const payer = payers[i]!;
    const wallet = walletKey(payer);
    const keyName = `key ${p.apiKeyId}`;
    const accountName = `account ${wallet}`;
    // a priced request's hold comes first (its conditional UPDATE), then the counts under it
    if (p.price > 0 && (!wallets.get(wallet)!.live || balances.get(wallet)! < p.price)) {
      answers.push({ error: new InsufficientCreditError(p.price) });
      continue;
    }
    if (limits && limitsApply(p, limits)) {
      if (limits.perKey > 0 && p.apiKeyId !== null && unfinished(keyName) >= limits.perKey) {
        answers.push({ outcome: { accepted: false, scope: 'key', limit: limits.perKey } });
        continue;
      }
      if (limits.perAccount > 0 && unfinished(accountName) >= limits.perAccount) {
        answers.push({ outcome: { accepted: false, scope: 'account', limit: limits.perAccount } });
        continue;
      }
    }
    balances.set(wallet, balances.get(wallet)! - p.price);
    for (const name of [keyName, accountName]) {
      const s = scopeIndex.get(name);
      if (s !== undefined) counted[s]!++;
    }
    accepted.push({ at: answers.length, row: req.row ?? submittedRow(p, req.now), req, payer });
    answers.push({ outcome: { accepted: true } });
  }
  if (accepted.length === 0) return answers;

  const priced = accepted.filter((a) => a.req.p.price > 0);
  const after = priced.length === 0 ? [] : await holdEach(trx, wallets, priced.map(({ payer, req: { p, now } }) => ({
    payer, userId: p.userId, predictionId: p.id, model: p.model, now, amount: p.price, listPrice: p.listPrice ?? p.price, discountPercent: p.discountPercent ?? null,
  })));
  // one column list for every row (a free request's row leaves list_price and discount_percent null, their default)
  await insertSubmitted(trx, accepted.map((a) => a.row));
  priced.forEach((a, i) => {
    answers[a.at] = { outcome: withSnapshot({ accepted: true, balance: after[i]! }, a.row) };
  });
  for (const a of accepted) if (a.req.p.price === 0) answers[a.at] = { outcome: withSnapshot({ accepted: true }, a.row) };
  return answers;
}

/**
 * Whether a submit may join a batch. The others run alone through submitPrediction, as before:
 * a key with a spend limit (its own row lock and spend read), an embed code (its caps), a studio
 * (markup columns, or another payer), and a free request with no limit to count (one INSERT, no
 * transaction, no wallet).
 */
export function batchable(p: NewPrediction, limits: ConcurrencyLimits | undefined, opts: SubmitOptions): boolean {
  if (opts.keySpendLimited === true || opts.embed !== undefined) return false;
  if (p.studioId || p.payer || p.studioMarkup || p.embedCodeId) return false;
  return p.price > 0 || limitsApply(p, limits);
}

/** The most requests in one batch, and the most bytes of input (a large batch waits for its INSERT, and MariaDB's max_allowed_packet bounds a statement). */
const MAX_BATCH = 64;
const MAX_BATCH_INPUT_BYTES = 1 << 20;

/** A batchable submit waiting for the next batch. */
interface Grouped {
  req: SubmitRequest & { row: Record<string, unknown> };
  opts: SubmitOptions;
  /** the size of its row's input, which bounds the batch */
  inputBytes: number;
}

/** Per knex instance (one per process, or per app in tests): one natural batcher for every wallet (db/batch.ts). */
const batcher = perInstance((db: Db) => naturalBatcher<Grouped, SubmitOutcome>((batch) => runBatch(db, batch), {
  max: MAX_BATCH,
  compatible: (taken, g) => taken.reduce((n, t) => n + t.inputBytes, 0) + g.inputBytes <= MAX_BATCH_INPUT_BYTES,
}));

/**
 * submitPrediction with group commit: the same arguments and the same answer (an outcome, or the
 * error it throws), but while a batch of submits is in flight in this process the request waits
 * and then joins the next batch (submitBatch), whichever wallet pays it.
 */
export function submitGrouped(db: Db, p: NewPrediction, now: number, limits?: ConcurrencyLimits, opts: SubmitOptions = {}): Promise<SubmitOutcome> {
  if (!batchable(p, limits, opts)) return submitPrediction(db, p, now, limits, opts);
  const row = submittedRow(p, now);
  const req = limits ? { p, now, limits, row } : { p, now, row };
  return batcher(db)({ req, opts, inputBytes: String(row.input).length });
}

async function runBatch(db: Db, batch: Grouped[]): Promise<Array<ItemOutcome<SubmitOutcome>>> {
  if (batch.length > 1) {
    try {
      const answers = await submitBatch(db, batch.map((g) => g.req));
      return answers.map((a) => ('outcome' in a ? { ok: true, value: a.outcome } : { ok: false, error: a.error }));
    } catch {
      // the batch's transaction rolled back whole: each request runs alone below, so one that
      // fails (a duplicate id, a vanished wallet) fails only itself, whichever wallets the others pay from
    }
  }
  return eachAlone(batch, ({ req: { p, now, limits, row }, opts }) => submitPrediction(db, p, now, limits, { ...opts, row }));
}
