// Group commit of production submits per wallet (README "No request lost, none charged twice").
// Every priced submit of a wallet takes that wallet's row lock for its whole transaction, so the
// submits of one hot wallet run one after another however many connections serve them, each
// paying its own round trips under the lock. Here, while one submit transaction of a wallet is in
// flight in this process, further submits for that wallet wait; when it finishes, everything that
// waited becomes the next batch, decided and written in one transaction (db/batch.ts
// keyedBatcher). No timer: at low load a submit finds its wallet idle and runs through
// submitPrediction, alone; under load a batch covers what arrived meanwhile. Each client still gets its answer only after the
// transaction holding its request committed. Batches of different processes (and of different
// knex instances in one process) queue on the wallet row's lock as single submits do.
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { InsufficientCreditError } from './errors.ts';
import { holdEach, lockWalletReading } from './wallet.ts';
import type { Payer } from './wallet.ts';
import { limitsApply, submitPrediction, submittedRow, unfinishedCounts, withSnapshot } from './predictions.ts';
import type { ConcurrencyLimits, NewPrediction, SubmitOptions, SubmitOutcome, UnfinishedScope } from './predictions.ts';
import { withLockRetry } from './retry.ts';
import { eachAlone, keyedBatcher, perInstance } from './batch.ts';
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
 * Submits of one wallet (`payer`; none with a key spend limit, an embed code or a studio: see
 * `batchable`), decided in arrival order and written in one transaction: the wallet row locked
 * and read once, the unfinished predictions counted once under that lock (per key and per
 * account, each up to its limit), then each request in turn, exactly as submitPrediction would
 * decide it alone at that point: 402 if the credit left does not cover its price, else 429 if its
 * key's or its account's unfinished predictions (those counted plus the ones accepted before it
 * in the batch) are at the limit, else accepted. One wallet UPDATE for the sum accepted, one
 * multi-row INSERT of their hold rows (each with its own balance_after/held_after), one of their
 * prediction rows. Throws when the transaction failed (after the lock-conflict retries): then
 * nothing of it was written, and the caller runs each request alone.
 */
export async function submitBatch(db: Db, payer: Payer, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
  return withLockRetry(() => db.transaction((trx) => decideAndWrite(trx, payer, batch)));
}

async function decideAndWrite(trx: Knex, payer: Payer, batch: readonly SubmitRequest[]): Promise<BatchAnswer[]> {
  const wallet = await lockWalletReading(trx, payer);
  if (!wallet) throw new Error(`wallet ${payer.teamId === null ? `of user ${payer.userId}` : `of team ${payer.teamId}`} not found`);
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
  for (const { p, limits } of batch) {
    if (!limits) continue;
    if (limits.perKey > 0 && p.apiKeyId !== null) need(`key ${p.apiKeyId}`, { keyId: p.apiKeyId }, limits.perKey);
    if (limits.perAccount > 0) need('account', { owner: payer }, limits.perAccount);
  }
  const counted = await unfinishedCounts(trx, scopes);
  const unfinished = (name: string) => {
    const i = scopeIndex.get(name);
    return i === undefined ? 0 : counted[i]!;
  };

  let balance = wallet.balance;
  const answers: BatchAnswer[] = [];
  const accepted: Array<{ at: number; row: Record<string, unknown>; req: SubmitRequest }> = [];
  for (const req of batch) {
    const { p, limits } = req;
    const keyName = `key ${p.apiKeyId}`;
    // a priced request's hold comes first (its conditional UPDATE), then the counts under it
    if (p.price > 0 && (!wallet.live || balance < p.price)) {
      answers.push({ error: new InsufficientCreditError(p.price) });
      continue;
    }
    if (limits && limitsApply(p, limits)) {
      if (limits.perKey > 0 && p.apiKeyId !== null && unfinished(keyName) >= limits.perKey) {
        answers.push({ outcome: { accepted: false, scope: 'key', limit: limits.perKey } });
        continue;
      }
      if (limits.perAccount > 0 && unfinished('account') >= limits.perAccount) {
        answers.push({ outcome: { accepted: false, scope: 'account', limit: limits.perAccount } });
        continue;
      }
    }
    balance -= p.price;
    for (const name of [keyName, 'account']) {
      const i = scopeIndex.get(name);
      if (i !== undefined) counted[i]!++;
    }
    accepted.push({ at: answers.length, row: req.row ?? submittedRow(p, req.now), req });
    answers.push({ outcome: { accepted: true } });
  }
  if (accepted.length === 0) return answers;

  const priced = accepted.filter((a) => a.req.p.price > 0);
  const balances = priced.length === 0 ? [] : await holdEach(trx, payer, wallet, priced.map(({ req: { p, now } }) => ({
    userId: p.userId, predictionId: p.id, model: p.model, now, amount: p.price, listPrice: p.listPrice ?? p.price, discountPercent: p.discountPercent ?? null,
  })));
  // one column list for every row (a free request's row leaves list_price and discount_percent null, their default)
  const rows = accepted.map((a) => (a.req.p.price > 0 ? a.row : { ...a.row, list_price: null, discount_percent: null }));
  await trx('predictions').insert(rows);
  priced.forEach((a, i) => {
    answers[a.at] = { outcome: withSnapshot({ accepted: true, balance: balances[i]! }, a.row) };
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

/** A batchable submit waiting for its wallet's batch. */
interface Grouped {
  req: SubmitRequest & { row: Record<string, unknown> };
  opts: SubmitOptions;
  payer: Payer;
  wallet: string;
  /** the size of its row's input, which bounds the batch */
  inputBytes: number;
}

/** Per knex instance (one per process, or per app in tests): a natural batcher per wallet (db/batch.ts). */
const walletBatcher = perInstance((db: Db) => keyedBatcher<Grouped, SubmitOutcome>((g) => g.wallet, (batch) => runBatch(db, batch), {
  max: MAX_BATCH,
  compatible: (taken, g) => taken.reduce((n, t) => n + t.inputBytes, 0) + g.inputBytes <= MAX_BATCH_INPUT_BYTES,
}));

/**
 * submitPrediction with group commit per wallet: the same arguments and the same answer (an
 * outcome, or the error it throws), but while a submit of the same wallet is in flight in this
 * process the request waits and then joins the next batch (submitBatch).
 */
export function submitGrouped(db: Db, p: NewPrediction, now: number, limits?: ConcurrencyLimits, opts: SubmitOptions = {}): Promise<SubmitOutcome> {
  if (!batchable(p, limits, opts)) return submitPrediction(db, p, now, limits, opts);
  const payer: Payer = { userId: p.userId, teamId: p.teamId ?? null };
  const row = submittedRow(p, now);
  const req = limits ? { p, now, limits, row } : { p, now, row };
  return walletBatcher(db).submit({ req, opts, payer, wallet: payer.teamId === null ? `user ${payer.userId}` : `team ${payer.teamId}`, inputBytes: String(row.input).length });
}

async function runBatch(db: Db, batch: Grouped[]): Promise<Array<ItemOutcome<SubmitOutcome>>> {
  if (batch.length > 1) {
    try {
      const answers = await submitBatch(db, batch[0]!.payer, batch.map((g) => g.req));
      return answers.map((a) => ('outcome' in a ? { ok: true, value: a.outcome } : { ok: false, error: a.error }));
    } catch {
      // the batch's transaction rolled back whole: each request runs alone below, so one that
      // fails (a duplicate id, a vanished wallet) fails only itself
    }
  }
  return eachAlone(batch, ({ req: { p, now, limits, row }, opts }) => submitPrediction(db, p, now, limits, { ...opts, row }));
}
