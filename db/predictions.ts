// Prediction rows and their state machine (README "Prediction states"):
//   queued -> pending -> processing -> completed | failed
//   processing -> pending (retry after a retryable adapter error)
//   queued | pending | processing -> cancelled
// Every transition is a conditional UPDATE, and every money move happens in the same
// transaction as the transition that causes it, so a prediction is charged at most once
// however many workers race on it.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, answersReturning, isMysql, rawRows } from './knex.ts';
import { creditWallet, holdFor, lockWallet, releaseFor, settleFor, settleWallets, settleWalletsSql, studioOwner } from './wallet/moves.ts';
import type { Charge, WalletCharges } from './wallet/moves.ts';
import { ownerKey } from '../lib/owner.ts';
import { checkKeySpend } from './key-spend.ts';
import { deliveriesInsertSql, insertDeliveries, insertDelivery, newDeliveryId } from './deliveries.ts';
import type { NewDelivery } from './deliveries.ts';
import { bool, jsonOr, num, numOrNull } from './rows.ts';
import { ownerSql, ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { withLockRetry } from './retry.ts';
import { executeRaw, preparedRows } from './prepared.ts';
import { unfinishedOfSql, unfinishedSql } from './unfinished.ts';
import { checkEmbedLimits } from './embed-codes.ts';
import { eachAlone, naturalBatcher, perInstance, type ItemOutcome } from '../lib/batch.ts';
import { marks, insertHead, rowsInsert } from './sql.ts';
import type { EmbedLimits } from './embed-codes.ts';

export type PredictionStatus = 'queued' | 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL: readonly PredictionStatus[] = ['completed', 'failed', 'cancelled'];

/** The moderation state a prediction carries (the column defaults to unreviewed; the spec's ReviewStatus). */
export type ReviewStatus = 'unreviewed' | 'approved' | 'rejected' | 'flagged';

export interface Prediction {
  id: string;
  userId: number;
  /** the team whose wallet pays (null: the user's own); set by db/team-resources.ts */
  teamId: number | null;
  apiKeyId: number | null;
  model: string;
  status: PredictionStatus;
  isTest: boolean;
  input: Record<string, unknown>;
  /** storage keys (or sandbox sample keys), rendered to URLs at read time */
  outputs: string[];
  nsfw: boolean[];
  error: string | null;
  price: number;
  webhookUrl: string | null;
  reviewStatus: ReviewStatus;
  attempts: number;
  inferenceMs: number | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  /** a stable reason next to `error` when the prediction failed (e.g. content_moderated) */
  errorCode: string | null;
  /** the provider's job once an upstream adapter submitted it (README "Providers") */
  upstreamJob: UpstreamJob | null;
  /** when the retention job removed the output files (README "Retention"); null while they are kept */
  outputsExpiredAt: number | null;
  /** the X-Request-Id of the submit, carried by every message published for it (sweeper included) */
  httpRequestId: string | null;
  /** the embed code it was made with (README "Embeds"); null otherwise */
  embedCodeId: number | null;
  /** SHA-256 of the embed visitor id it was made for */
  embedVisitor: string | null;
  /** the whitelabel studio it was made in (README "Whitelabel studios"); null otherwise */
  studioId: number | null;
  /** end_user_pays: the studio owner's markup in `price`, credited to the owner when charged */
  studioMarkup: number;
  /** the wallet that holds and pays the price: the owner's (userId, teamId) unless a studio's owner pays */
  payer: Owner;
  /** what its hold recorded (README "Discounts"), copied onto the charge; listPrice null: free, or written before migration 3101 */
  billing?: { listPrice: number | null; discountPercent: number | null };
}

export interface UpstreamJob {
  /** x-model.upstream: whose job it is */
  provider: string;
  id: string;
  /** the provider's own status word, as last seen */
  status: string | null;
  /** the number of the poll chain's current message (stale copies carry a smaller one) */
  polls: number;
  submittedAt: number;
  /** the job's place in the provider's queue (0: next), while the provider reports one */
  queuePosition: number | null;
  /** 0..1, while the provider reports one */
  progress: number | null;
}

/** What a poll learned of a running job besides its status (null: not reported). */
export interface UpstreamProgress {
  queuePosition?: number | null;
  progress?: number | null;
}

interface PredictionRow {
  id: string;
  user_id: number;
  team_id?: number | null;
  api_key_id: number | null;
  model: string;
  status: string;
  is_test: number | boolean;
  input: string;
  outputs: string | null;
  nsfw: string | null;
  error: string | null;
  price: number | string;
  webhook_url: string | null;
  review_status: string;
  attempts: number;
  inference_ms: number | null;
  created_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
  error_code?: string | null;
  upstream_name?: string | null;
  upstream_job_id?: string | null;
  upstream_status?: string | null;
  upstream_polls?: number | string | null;
  upstream_submitted_at?: number | string | null;
  upstream_queue_position?: number | string | null;
  upstream_progress?: number | string | null;
  outputs_expired_at?: number | string | null;
  http_request_id?: string | null;
  embed_code_id?: number | string | null;
  embed_visitor?: string | null;
  studio_id?: number | string | null;
  studio_markup?: number | string | null;
  payer_user_id?: number | string | null;
  payer_team_id?: number | string | null;
  list_price?: number | string | null;
  discount_percent?: number | string | null;
}

/** Who pays a prediction: its payer columns when a studio's owner pays (owner_pays), else its owner. */
function payerOfRow(r: Pick<PredictionRow, 'user_id' | 'team_id' | 'payer_user_id' | 'payer_team_id'>): Owner {
  if (r.payer_user_id !== null && r.payer_user_id !== undefined) return { userId: num(r.payer_user_id), teamId: numOrNull(r.payer_team_id ?? null) };
  return { userId: num(r.user_id), teamId: numOrNull(r.team_id ?? null) };
}

function toPrediction(r: PredictionRow): Prediction {
  return {
    id: r.id,
    userId: num(r.user_id),
    teamId: numOrNull(r.team_id ?? null),
    apiKeyId: numOrNull(r.api_key_id),
    model: r.model,
    status: r.status as PredictionStatus,
    isTest: bool(r.is_test),
    input: jsonOr<Record<string, unknown>>(r.input, {}),
    outputs: jsonOr<string[]>(r.outputs, []),
    nsfw: jsonOr<boolean[]>(r.nsfw, []),
    error: r.error,
    price: num(r.price),
    webhookUrl: r.webhook_url,
    reviewStatus: r.review_status as ReviewStatus,
    attempts: num(r.attempts),
    inferenceMs: numOrNull(r.inference_ms),
    createdAt: num(r.created_at),
    startedAt: numOrNull(r.started_at),
    completedAt: numOrNull(r.completed_at),
    errorCode: r.error_code ?? null,
    upstreamJob: r.upstream_job_id && r.upstream_name ? {
      provider: r.upstream_name,
      id: r.upstream_job_id,
      status: r.upstream_status ?? null,
      polls: num(r.upstream_polls ?? 0),
      submittedAt: num(r.upstream_submitted_at ?? 0),
      queuePosition: numOrNull(r.upstream_queue_position ?? null),
      progress: r.upstream_progress === null || r.upstream_progress === undefined ? null : Number(r.upstream_progress),
    } : null,
    outputsExpiredAt: numOrNull(r.outputs_expired_at ?? null),
    httpRequestId: r.http_request_id ?? null,
    embedCodeId: numOrNull(r.embed_code_id ?? null),
    embedVisitor: r.embed_visitor ?? null,
    studioId: numOrNull(r.studio_id ?? null),
    studioMarkup: num(r.studio_markup ?? 0),
    payer: payerOfRow(r),
    billing: { listPrice: numOrNull(r.list_price ?? null), discountPercent: numOrNull(r.discount_percent ?? null) },
  };
}

/** 32 hex characters: 48 bits of milliseconds (keeps the primary key roughly ordered) + 80 random bits. */
export function newPredictionId(now: number): string {
  return now.toString(16).padStart(12, '0').slice(-12) + randomHex10();
}

// Random bytes drawn 4 KiB at a time (one call to the CSPRNG per ~400 ids instead of one per id);
// each id takes its own 10 bytes, never reused.
const ID_POOL = Buffer.alloc(4096);
let idPoolOffset = ID_POOL.length;
function randomHex10(): string {
  if (idPoolOffset + 10 > ID_POOL.length) {
    crypto.randomFillSync(ID_POOL);
    idPoolOffset = 0;
  }
  const hex = ID_POOL.toString('hex', idPoolOffset, idPoolOffset + 10);
  idPoolOffset += 10;
  return hex;
}

export interface NewPrediction {
  id: string;
  /** the user who submitted it (for a team prediction: the member, or a team key's creator) */
  userId: number;
  /** the team whose wallet pays and which owns the record; absent or null: the user's own */
  teamId?: number | null;
  apiKeyId: number | null;
  model: string;
  input: Record<string, unknown>;
  price: number;
  /** README "Discounts": the price before the discount and the percent taken off, recorded on the hold's ledger row */
  listPrice?: number;
  discountPercent?: number | null;
  webhookUrl: string | null;
  /** the submit's X-Request-Id (already validated: <= 128 safe characters) */
  httpRequestId?: string | null;
  /** where the request came from (README "Run history"); absent: 'api' */
  source?: PredictionSource;
  /** made with an embed code (README "Embeds"): the code and the SHA-256 of the visitor id */
  embedCodeId?: number | null;
  embedVisitor?: string | null;
  /** made in a whitelabel studio's context (README "Whitelabel studios") */
  studioId?: number | null;
  /** end_user_pays: the owner's part of `price` */
  studioMarkup?: number;
  /** owner_pays: the studio owner's wallet, which holds and pays instead of the prediction's owner */
  payer?: Owner;
}

/** Where a prediction was submitted from: an API credential, a dashboard session, or a partner surface. */
export type PredictionSource = 'api' | 'dashboard' | 'embed' | 'agent_embed' | 'studio';

/** Holds the price on the payer's wallet (the team's when teamId is set) and records the request as `queued`, in one transaction. */
/** Limits on unfinished (queued, pending, processing) predictions checked by submitPrediction; 0: none. */
export interface ConcurrencyLimits {
  /** of the submitting API key (ignored when apiKeyId is null) */
  perKey: number;
  /** of the owner: the user's own predictions, or the team's */
  perAccount: number;
}

/** Whether submitPrediction recorded the request, or which concurrency limit refused it. */
/** `balance`: the paying wallet's spendable balance after the hold, when one was taken; `row`: what its queue message carries for the worker's claim. */
export type SubmitOutcome = { accepted: true; balance?: number; row?: ClaimSnapshot } | { accepted: false; scope: 'key' | 'account' | 'embed'; limit: number } | { accepted: false; scope: 'embed-daily' | 'embed-monthly'; limit: number };

/** One count of unfinished predictions: of an API key, or of a wallet's account (a user's own predictions, or a team's). */
export type UnfinishedScope = { keyId: number } | { owner: Owner };

/**
 * The unfinished predictions of each scope, each counted up to its `bound` (a limit: only "at
 * least the limit" matters, so the count stops there and never walks a larger backlog), in one
 * round trip. Each count is its own index-backed subquery (api_key_id; user_id/team_id; on
 * MariaDB indexes on its virtual columns, db/unfinished.ts), not an OR that would defeat both
 * indexes. The caller holds the wallet row's lock (README "Rate limits on generation").
 */
export async function unfinishedCounts(trx: Knex, scopes: ReadonlyArray<{ scope: UnfinishedScope; bound: number }>): Promise<number[]> {
  if (scopes.length === 0) return [];
  const bindings: Knex.RawBinding[] = [];
  const columns = scopes.map(({ scope, bound }, i) => unfinishedCountColumn(trx, scope, bound, `c${i}`, bindings));
  const [row] = await rawRows<Record<string, number | string>>(trx, `select ${columns.join(', ')}`, bindings);
  return scopes.map((_, i) => num(row![`c${i}`]!));
}

/** One count of unfinishedCounts as a column of a SELECT named `alias`, its bindings appended to `bindings`. */
export function unfinishedCountColumn(db: Knex, scope: UnfinishedScope, bound: number, alias: string, bindings: Knex.RawBinding[]): string {
  let where: string;
  if ('keyId' in scope) {
    where = `api_key_id = ? and ${unfinishedSql(db)}`;
    bindings.push(scope.keyId);
  } else if (scope.owner.teamId === null) {
    where = `user_id = ? and team_id is null and ${unfinishedSql(db)}`;
    bindings.push(scope.owner.userId);
  } else {
    where = unfinishedOfSql(db, 'team_id');
    bindings.push(scope.owner.teamId);
  }
  bindings.push(bound);
  return `(select count(*) from (select 1 from predictions where ${where} limit ?) as u_${alias}) as ${alias}`;
}

/** The `predictions` row a production submit inserts (status `queued`). */
export function submittedRow(p: NewPrediction, now: number): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: p.id, user_id: p.userId, team_id: p.teamId ?? null, api_key_id: p.apiKeyId, model: p.model, status: 'queued', is_test: false,
    input: JSON.stringify(p.input), price: p.price, webhook_url: p.webhookUrl, http_request_id: p.httpRequestId ?? null, created_at: now, updated_at: now,
    source: p.source ?? 'api',
    ...(p.embedCodeId ? { embed_code_id: p.embedCodeId, embed_visitor: p.embedVisitor ?? null } : {}),
    ...studioColumns(p),
  };
  // what the hold's ledger row records, kept on the prediction too so the charge need not read the hold row
  if (p.price > 0) Object.assign(row, { list_price: p.listPrice ?? p.price, discount_percent: p.discountPercent ?? null });
  return row;
}

/**
 * The columns of submittedRow for a request with no embed code and no studio (every batchable
 * submit, db/submit-batch.ts, and most single ones), in the order insertSubmitted writes them; a
 * free request's row leaves list_price and discount_percent null, their default.
 */
const SUBMITTED_COLUMNS = ['id', 'user_id', 'team_id', 'api_key_id', 'model', 'status', 'is_test', 'input', 'price', 'webhook_url', 'http_request_id', 'created_at', 'updated_at', 'source', 'list_price', 'discount_percent'] as const;
const SUBMITTED = new Set<string>(SUBMITTED_COLUMNS);
const insertSubmittedRows = rowsInsert('predictions', SUBMITTED_COLUMNS);

/**
 * MariaDB/MySQL: submittedRow rows as one fixed INSERT (`values ?`, the rows one nested binding
 * that mysql2 writes out), to run inside a statement of the caller's; null when a row has a
 * column besides SUBMITTED_COLUMNS' (embed, studio).
 */
export function submittedInsertSql(rows: ReadonlyArray<Record<string, unknown>>): { sql: string; binding: Knex.RawBinding } | null {
  const values: Knex.RawBinding[][] = [];
  for (const row of rows) {
    for (const column in row) if (!SUBMITTED.has(column)) return null;
    values.push(SUBMITTED_COLUMNS.map((column) => (row[column] ?? null) as Knex.RawBinding));
  }
  // knex types no array of arrays as a binding; it hands it to mysql2 as it is (rowsInsert)
  return { sql: `${SUBMITTED_HEAD}?`, binding: values as unknown as Knex.RawBinding };
}
const SUBMITTED_HEAD = insertHead('predictions', SUBMITTED_COLUMNS);

/**
 * Inserts submittedRow rows in one statement: fixed SQL (rowsInsert) when every row's columns are
 * SUBMITTED_COLUMNS' (the knex builder otherwise, for a row with embed or studio columns).
 */
export async function insertSubmitted(trx: Knex, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  const values: Knex.RawBinding[][] = [];
  for (const row of rows) {
    for (const column in row) {
      if (!SUBMITTED.has(column)) {
        await trx('predictions').insert(rows as Array<Record<string, unknown>>);
        return;
      }
    }
    values.push(SUBMITTED_COLUMNS.map((column) => (row[column] ?? null) as Knex.RawBinding));
  }
  await insertSubmittedRows(trx, values);
}

/** Whether `limits` asks submitPrediction to count anything for this request. */
export function limitsApply(p: Pick<NewPrediction, 'apiKeyId'>, limits: ConcurrencyLimits | undefined): boolean {
  return limits !== undefined && (limits.perAccount > 0 || (limits.perKey > 0 && p.apiKeyId !== null));
}

/** What submitPrediction takes besides the request. */
export interface SubmitOptions {
  /** the submitting key has a spend limit (db/key-spend.ts, checked first in the transaction) */
  keySpendLimited?: boolean;
  embed?: EmbedLimits;
  /** the request's row (submittedRow of the same request and time), when the caller built it already */
  row?: Record<string, unknown>;
}

/**
 * Holds the price and records the request as `queued`, in one transaction. With `limits`, the
 * owner's wallet row is locked first (by the hold itself when there is a price) and the owner's
 * and key's unfinished predictions are counted under that lock (index-backed), so parallel
 * submits past a limit cannot all get in: every submit of an owner, whichever process serves it,
 * queues on the same row. A refused submit holds nothing (its hold is rolled back).
 */
export async function submitPrediction(db: Db, p: NewPrediction, now: number, limits?: ConcurrencyLimits, opts: SubmitOptions = {}): Promise<SubmitOutcome> {
  const { embed } = opts;
  const teamId = p.teamId ?? null;
  const row = opts.row ?? submittedRow(p, now);
  const checked = embed !== undefined || limitsApply(p, limits);
  const spendChecked = opts.keySpendLimited === true && p.apiKeyId !== null && p.price > 0;
  if (p.price === 0 && !checked) {
    await db('predictions').insert(row);
    return withSnapshot({ accepted: true }, row);
  }
  const payer = p.payer ?? { userId: p.userId, teamId };
  const listPrice = p.listPrice ?? p.price;
  const discountPercent = p.discountPercent ?? null;
  const hold = (trx: Knex) => holdFor(trx, payer, p.price, { predictionId: p.id, model: p.model, now, listPrice, discountPercent });
  // A deadlock victim is rolled back whole (hold and insert), so running it again is safe.
  try {
    return await withLockRetry(() => db.transaction(async (trx): Promise<SubmitOutcome> => {
      if (spendChecked) await checkKeySpend(trx, p.apiKeyId!, p.price, now);
      if (embed) {
        // the code's row first, then the wallet: every embed submit takes them in this order
        const outcome = await checkEmbedLimits(trx, embed, p.price, now);
        if (!outcome.ok) return { accepted: false, scope: outcome.reason === 'concurrency' ? 'embed' : outcome.reason === 'daily' ? 'embed-daily' : 'embed-monthly', limit: outcome.limit };
      }
      let wallet: { balance: number } | undefined;
      if (checked && limits) {
        // The counts need the wallet row locked first. A priced request's hold is that lock (its
        // UPDATE takes the row), so it goes first and a refusal rolls it back (LimitRefusal);
        // a free one locks the row with a write that changes nothing.
        if (p.price > 0) wallet = await hold(trx);
        else await lockWallet(trx, payer);
        const byKey = limits.perKey > 0 && p.apiKeyId !== null;
        const byAccount = limits.perAccount > 0;
        const counts = await unfinishedCounts(trx, [
          ...(byKey ? [{ scope: { keyId: p.apiKeyId! }, bound: limits.perKey }] : []),
          ...(byAccount ? [{ scope: { owner: payer }, bound: limits.perAccount }] : []),
        ]);
        let refused: SubmitOutcome | undefined;
        if (byKey && counts[0]! >= limits.perKey) refused = { accepted: false, scope: 'key', limit: limits.perKey };
        else if (byAccount && counts[byKey ? 1 : 0]! >= limits.perAccount) refused = { accepted: false, scope: 'account', limit: limits.perAccount };
        if (refused && wallet) throw new LimitRefusal(refused);
        if (refused) return refused;
      } else {
        wallet = await hold(trx);
      }
      await insertSubmitted(trx, [row]);
      return withSnapshot(wallet ? { accepted: true, balance: wallet.balance } : { accepted: true }, row);
    }));
  } catch (err) {
    if (err instanceof LimitRefusal) return err.outcome;
    throw err;
  }
}

/** A concurrency limit refused a submit after its hold was taken: thrown so that the transaction rolls the hold back. */
class LimitRefusal extends Error {
  readonly outcome: SubmitOutcome;
  constructor(outcome: SubmitOutcome) {
    super('refused by a concurrency limit');
    this.outcome = outcome;
  }
}

function studioColumns(p: Pick<NewPrediction, 'studioId' | 'studioMarkup' | 'payer'>): Record<string, unknown> {
  if (!p.studioId) return {};
  return { studio_id: p.studioId, studio_markup: p.studioMarkup ?? 0, ...(p.payer ? { payer_user_id: p.payer.userId, payer_team_id: p.payer.teamId } : {}) };
}

/** Sandbox requests are born completed, with mock outputs and no price; returns the webhook delivery's id, if any. */
export async function insertSandboxPrediction(db: Db, p: Omit<NewPrediction, 'price'>, outputs: string[], now: number, opts: { balanceOf?: number } = {}): Promise<{ deliveryId: string | null; balance: number | undefined }> {
  // every sandbox submit runs it: fixed SQL, the columns in SANDBOX_COLUMNS' order
  const bindings: Knex.RawBinding[] = [
    p.id, p.userId, p.teamId ?? null, p.apiKeyId, p.model, 'completed', true,
    JSON.stringify(p.input), JSON.stringify(outputs), JSON.stringify(outputs.map(() => false)),
    0, p.webhookUrl, p.httpRequestId ?? null, 0, now, now, now, now, p.source ?? 'api', p.studioId ?? null,
  ];
  if (!p.webhookUrl) {
    // concurrent submits of this process share one multi-row INSERT (sandboxBatcher); in a transaction, alone
    const balance = db.isTransaction ? await insertReadingBalance(db, bindings, opts.balanceOf) : await sandboxBatcher(db)({ bindings, balanceOf: opts.balanceOf });
    return { deliveryId: null, balance };
  }
  const webhookUrl = p.webhookUrl;
  return db.transaction(async (trx) => {
    const balance = await insertReadingBalance(trx, bindings, opts.balanceOf);
    const deliveryId = newDeliveryId();
    await insertDelivery(trx, { id: deliveryId, predictionId: p.id, userId: p.userId, url: webhookUrl }, now);
    return { deliveryId, balance };
  });
}
/** The columns a sandbox insert writes, in its bindings' order (test/bench/floor.ts writes the same). */
export const SANDBOX_COLUMNS = [
  'id', 'user_id', 'team_id', 'api_key_id', 'model', 'status', 'is_test', 'input', 'outputs', 'nsfw',
  'price', 'webhook_url', 'http_request_id', 'inference_ms', 'created_at', 'started_at', 'completed_at', 'updated_at', 'source', 'studio_id',
];
const INSERT_SANDBOX_SQL = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES (${SANDBOX_COLUMNS.map(() => '?').join(', ')})`;
const INSERT_SANDBOX_RETURNING_BALANCE_SQL = `${INSERT_SANDBOX_SQL} RETURNING (SELECT balance FROM users WHERE id = ?) AS balance`;

/**
 * Inserts a sandbox prediction row; with `balanceOf`, reads that user's balance in the same
 * statement (INSERT ... RETURNING a scalar subquery: MariaDB 10.5+ and SQLite 3.35+), so the
 * sandbox's X-Balance-Remaining costs no round trip of its own and is never a cached figure.
 * MySQL has no RETURNING: undefined, and the caller reads the balance.
 */
async function insertReadingBalance(db: Knex, bindings: Knex.RawBinding[], balanceOf: number | undefined): Promise<number | undefined> {
  if (balanceOf === undefined || !await answersReturning(db)) {
    await db.raw(INSERT_SANDBOX_SQL, bindings);
    return undefined;
  }
  const rows = await rawRows<{ balance: number | string | null }>(db, INSERT_SANDBOX_RETURNING_BALANCE_SQL, [...bindings, balanceOf]);
  return num(rows[0]?.balance ?? 0);
}

interface SandboxRow {
  /** SANDBOX_COLUMNS' values (id first) */
  bindings: Knex.RawBinding[];
  balanceOf: number | undefined;
}

/** Most rows one sandbox INSERT carries (20 bindings each). */
const SANDBOX_BATCH_MAX = 100;
const ROW_MARKS = `(${SANDBOX_COLUMNS.map(() => '?').join(', ')})`;
const sandboxBatchSql = new Map<string, string>();
function sandboxInsertSql(n: number, returning: boolean): string {
  const key = `${n}:${returning}`;
  let sql = sandboxBatchSql.get(key);
  if (sql === undefined) {
    sql = `INSERT INTO predictions (${SANDBOX_COLUMNS.join(', ')}) VALUES ${Array.from({ length: n }, () => ROW_MARKS).join(', ')}`;
    // each row's user's balance (balanceOf is always the row's user: a personal prediction), read by the insert itself
    if (returning) sql += ' RETURNING id, (SELECT balance FROM users WHERE users.id = predictions.user_id) AS balance';
    sandboxBatchSql.set(key, sql);
  }
  return sql;
}

/**
 * Group commit of sandbox rows (test/bench/README.md, "Round trips per request, change by change"): the rows of the sandbox
 * submits that arrive while one INSERT is in flight go in the next one, a single statement, so
 * each is answered after its row is committed, and the balances asked for are read by that same
 * statement where it has `RETURNING`; without (MySQL) the callers read them as they did. If the
 * statement fails (it wrote nothing), each row is inserted alone as before, and only the rows that
 * fail alone fail.
 */
const sandboxBatcher = perInstance((db: Db) => naturalBatcher<SandboxRow, number | undefined>(async (rows) => {
  const alone = () => eachAlone(rows, (r) => insertReadingBalance(db, r.bindings, r.balanceOf));
  if (rows.length === 1) return alone();
  let balances: Map<string, number> | undefined;
  try {
    const returning = rows.some((r) => r.balanceOf !== undefined) && await answersReturning(db);
    const sql = sandboxInsertSql(rows.length, returning);
    const bindings = rows.flatMap((r) => r.bindings);
    // prepared (db/prepared.ts): the INSERT of n rows is parsed once per connection, not once per batch
    const got = await preparedRows<{ id: string; balance: number | string | null }>(db, sql, bindings);
    if (returning) balances = new Map(got.map((g) => [g.id, num(g.balance ?? 0)]));
  } catch {
    return alone();
  }
  return rows.map((r): ItemOutcome<number | undefined> => ({ ok: true, value: r.balanceOf === undefined || !balances ? undefined : balances.get(r.bindings[0] as string) ?? 0 }));
}, { max: SANDBOX_BATCH_MAX, gather: 'turn' }));

/** The outcome of a finishing transition: whether it was recorded, and the webhook delivery it created. */
export interface Finished {
  recorded: boolean;
  deliveryId: string | null;
}

async function deliveryFor(trx: Knex, p: Prediction, now: number): Promise<string | null> {
  if (!p.webhookUrl) return null;
  const id = newDeliveryId();
  await insertDelivery(trx, { id, predictionId: p.id, userId: p.userId, url: p.webhookUrl }, now);
  return id;
}

/**
 * The columns of a submitted row that a worker needs, carried in the prediction's queue message
 * so that the first claim need not read the row back (claim with `known`). Nothing in it is
 * trusted: that claim's UPDATE matches only the row that has every one of these values (strings
 * compared byte for byte, through the row's generated `claim_digest`: claimDigest), so a message
 * can claim no more than its id alone could. The order of the keys is the digest's: changing it, or
 * the set of columns, needs a migration of `claim_digest` too.
 */
const SNAPSHOT_TYPES = {
  user_id: 'number', team_id: 'number', api_key_id: 'number', model: 'string', is_test: 'boolean', input: 'string', price: 'number',
  webhook_url: 'string', http_request_id: 'string', created_at: 'number', source: 'string', embed_code_id: 'number', embed_visitor: 'string',
  studio_id: 'number', studio_markup: 'number', payer_user_id: 'number', payer_team_id: 'number', list_price: 'number', discount_percent: 'number',
} as const;
const SNAPSHOT_COLUMNS = Object.keys(SNAPSHOT_TYPES) as Array<keyof typeof SNAPSHOT_TYPES>;
export type ClaimSnapshot = Record<keyof typeof SNAPSHOT_TYPES, string | number | boolean | null>;

export function withSnapshot(outcome: { accepted: true; balance?: number }, row: Record<string, unknown>): SubmitOutcome {
  const snapshot = snapshotOfRow(row);
  return snapshot ? { ...outcome, row: snapshot } : outcome;
}

/** A larger input is not carried: the message would weigh on the broker more than the read it saves. */
const SNAPSHOT_MAX_INPUT = 64 * 1024;

/** The columns' values as the submit's INSERT wrote them (a column it left out has its default); undefined for a large input. */
function snapshotOfRow(row: Record<string, unknown>): ClaimSnapshot | undefined {
  if (typeof row.input === 'string' && row.input.length > SNAPSHOT_MAX_INPUT) return undefined;
  const defaults: Record<string, string | number | boolean> = { is_test: false, studio_markup: 0, source: 'api' };
  return Object.fromEntries(SNAPSHOT_COLUMNS.map((c) => [c, (row[c] ?? defaults[c] ?? null) as string | number | boolean | null])) as ClaimSnapshot;
}

/** A snapshot from a queue message (unknown input): every column there, each null or of its column's type (numbers: safe integers); else undefined. */
export function parseClaimSnapshot(v: unknown): ClaimSnapshot | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length !== SNAPSHOT_COLUMNS.length) return undefined;
  for (const c of SNAPSHOT_COLUMNS) {
    const x = o[c];
    if (x !== null && (typeof x !== SNAPSHOT_TYPES[c] || (typeof x === 'number' && !Number.isSafeInteger(x)))) return undefined;
  }
  return o as ClaimSnapshot;
}

/**
 * The digest MariaDB's `claim_digest` holds for a row with this id and these values (migration
 * 20261128_0401): SHA-256 of the id and the carried columns in SNAPSHOT_TYPES order, each as its
 * length in UTF-8 bytes, ':' and its text (a boolean as 1 or 0, a number in decimal), NULL as '-'.
 * A length prefix never starts with '-' and says where its value ends, so the text names the values
 * unambiguously. (The values sit between length prefixes, so no surrogate pair is split.)
 */
export function claimDigest(id: string, s: ClaimSnapshot): Buffer {
  let text = `${Buffer.byteLength(id)}:${id}`;
  for (const c of SNAPSHOT_COLUMNS) {
    const v = s[c];
    if (v === null) text += '-';
    else if (typeof v === 'boolean') text += v ? '1:1' : '1:0';
    else if (typeof v === 'number') { const d = String(v); text += `${d.length}:${d}`; } else text += `${Buffer.byteLength(v)}:${v}`;
  }
  return crypto.createHash('sha256').update(text).digest();
}

/**
 * The queue confirmed these requests: queued -> pending, in one statement for the whole batch
 * (confirms arrive in bursts: RabbitMQ acknowledges with `multiple`, so one flush usually carries
 * many). On MariaDB with `FORCE INDEX (PRIMARY)`: a plain `WHERE id IN (…) AND status = 'queued'`
 * may be planned as a range scan of the (status, created_at) index, which locks index ranges that
 * concurrent submits (inserting `queued` rows) and claims wait on, and that deadlocked them; by
 * primary key it locks only the rows it names, in id order (so two flushes lock in the same order).
 * `status = 'queued'` stays a condition checked on each locked row. The dispatcher marks a
 * confirm after DISPATCH_MARK_DELAY_MS (workers/dispatch.ts), when a worker has usually claimed the
 * row: then (`readFirst`) the rows still queued are read first, without locks, and only those are
 * written.
 */
export async function markPending(db: Db, ids: readonly string[], now: number, opts: { readFirst?: boolean } = {}): Promise<void> {
  const sorted = [...new Set(ids)].sort();
  if (sorted.length === 0) return;
  if (isMysql(db)) {
    // readFirst (after the dispatcher's wait, when a worker has claimed most rows): a plain read
    // first (no lock), so the UPDATE names only the rows still queued, and most of the time none;
    // at once after the confirm nearly every row is still queued, and the read would only add
    const queued = opts.readFirst
      ? (await rawRows<{ id: string }>(db, `select id from predictions force index (primary) where id in (${marks(sorted.length)}) and status = 'queued'`, sorted)).map((r) => r.id).sort()
      : sorted;
    if (queued.length === 0) return;
    await withLockRetry(() => db.raw(`update predictions force index (primary) set status = 'pending', updated_at = ? where id in (${marks(queued.length)}) and status = 'queued'`, [now, ...queued]));
    return;
  }
  await withLockRetry(() => db('predictions').whereIn('id', sorted).andWhere('status', 'queued').update({ status: 'pending', updated_at: now }));
}

/**
 * A worker takes the request. `processing` is claimable too: the broker only redelivers a
 * message whose consumer died before acknowledging, so that worker's claim is void.
 * One round trip where it can be: on SQLite the UPDATE returns the row; on MariaDB (no
 * UPDATE ... RETURNING) a first claim whose message carried the row (`known`) is an UPDATE that
 * also requires every carried value and a row never claimed (attempts 0, no error, no upstream
 * job), so the row is what the message says; such claims arriving together share one
 * transaction (claimBatcher). Otherwise (a sweeper's copy, a retry, a redelivery, or a row that
 * changed) the claim is an UPDATE on the state alone and a read of the row.
 */
export async function claim(db: Db, id: string, now: number, opts: { fromProcessing?: boolean; known?: ClaimSnapshot } = {}): Promise<Prediction | undefined> {
  const from: PredictionStatus[] = opts.fromProcessing === false ? ['queued', 'pending'] : ['queued', 'pending', 'processing'];
  if (!isMysql(db)) {
    const rows = await withLockRetry(() => db('predictions').where('id', id).whereIn('status', from).update(claimSet(db, now), '*')) as unknown as PredictionRow[];
    return rows[0] ? toPrediction(rows[0]) : undefined;
  }
  if (opts.known) return claimBatcher(db)({ id, now, known: opts.known, digest: claimDigest(id, opts.known), from });
  return claimByState(db, id, now, from);
}

const claimSet = (db: Db, now: number) => ({ status: 'processing', started_at: now, updated_at: now, attempts: db.raw('attempts + 1') });

/** The claim on the state alone, then a read of the row (MariaDB). */
async function claimByState(db: Db, id: string, now: number, from: readonly PredictionStatus[]): Promise<Prediction | undefined> {
  const n = await withLockRetry(() => db('predictions')
    .where('id', id)
    .whereIn('status', from)
    .update(claimSet(db, now)));
  if (affected(n) !== 1) return undefined;
  const row = await db<PredictionRow>('predictions').where('id', id).first();
  return row ? toPrediction(row) : undefined;
}

/** A first claim with the row its message carried (MariaDB); `from`: the states its fallback claims. */
interface CarriedClaim {
  id: string;
  now: number;
  known: ClaimSnapshot;
  /** claimDigest(id, known) */
  digest: Buffer;
  from: readonly PredictionStatus[];
}

/** Most first claims one statement takes. */
const CLAIM_BATCH_MAX = 64;

const carriedSql = new Map<number, string>();

/**
 * The UPDATE of `k` carried claims, by primary key (MariaDB may otherwise plan it as a range of an
 * owner index, locking rows and gaps that submits and completions wait on), each row only if it
 * was never claimed and holds every carried value: its `claim_digest` (which covers the id) is
 * one of the claims' digests. Both IN lists are constants, which MariaDB sorts once and searches.
 */
function carriedClaimSql(k: number): string {
  let sql = carriedSql.get(k);
  if (sql === undefined) {
    const marks = Array.from({ length: k }, () => '?').join(', ');
    const when = Array.from({ length: k }, () => 'when ? then ?').join(' ');
    sql = `update predictions force index (primary) set status = 'processing', started_at = case id ${when} end, updated_at = case id ${when} end, attempts = attempts + 1 where id in (${marks}) and status in ('queued', 'pending') and attempts = 0 and error is null `
      + `and upstream_job_id is null and review_status = 'unreviewed' and claim_digest in (${marks})`;
    carriedSql.set(k, sql);
  }
  return sql;
}

const claimBatchText = new Map<number, string>();

/**
 * The claim batch's transaction as one MariaDB compound statement: carriedClaimSql, committed only
 * when it took all `k` rows (answers mg_claimed 1), else rolled back (0); an error inside rolls
 * it back in its exit handler and is raised again (withLockRetry retries a deadlock).
 */
function claimBatchInOneSql(k: number): string {
  let sql = claimBatchText.get(k);
  if (sql === undefined) {
    sql = `begin not atomic
declare exit handler for sqlexception begin rollback; resignal; end;
start transaction;
${carriedClaimSql(k)};
if row_count() = ${k} then commit; select 1 as mg_claimed; else rollback; select 0 as mg_claimed; end if;
end`;
    claimBatchText.set(k, sql);
  }
  return sql;
}

function carriedBindings(claims: readonly CarriedClaim[]): Knex.RawBinding[] {
  const bindings: Knex.RawBinding[] = [];
  for (let i = 0; i < 2; i++) for (const c of claims) bindings.push(c.id, c.now);
  for (const c of claims) bindings.push(c.id);
  for (const c of claims) bindings.push(c.digest);
  return bindings;
}

/** The prediction a carried claim took: the carried row, now claimed. */
function claimedAsCarried(c: CarriedClaim): Prediction {
  return toPrediction({
    ...(c.known as unknown as PredictionRow), id: c.id, status: 'processing', attempts: 1, started_at: c.now, review_status: 'unreviewed',
    outputs: null, nsfw: null, error: null, inference_ms: null, completed_at: null,
  });
}

/** The rows a MariaDB UPDATE matched (mysql2's answer to a raw statement). */
function rawAffected(result: unknown): number {
  const header = Array.isArray(result) ? result[0] as { affectedRows?: unknown } | undefined : undefined;
  return typeof header?.affectedRows === 'number' ? header.affectedRows : 0;
}

/** One carried claim alone (autocommit); a row that differs from what was carried is claimed on its state. */
async function claimCarriedAlone(db: Db, c: CarriedClaim): Promise<Prediction | undefined> {
  const n = rawAffected(await withLockRetry(() => executeRaw(db, carriedClaimSql(1), carriedBindings([c]))));
  return n === 1 ? claimedAsCarried(c) : claimByState(db, c.id, c.now, c.from);
}

const NOT_ALL_CLAIMED = new Error('a claim of the batch found its row changed');

/**
 * Group commit of the carried claims of this process (MariaDB): the claims that arrive while one
 * is in flight go together, in one transaction with one UPDATE (carriedClaimSql) and one COMMIT
 * instead of one commit each. MariaDB cannot say which rows an UPDATE changed, so the transaction
 * commits only when the UPDATE took every claim of the batch (the usual case: first deliveries of
 * rows still pending); otherwise (a copy of a message already claimed, a cancelled row, a row that
 * differs from its message, the same id twice) it rolls back whole and each claim runs alone, so
 * each prediction is claimed once and each caller learns exactly whether it claimed. A batch that
 * fails otherwise (beyond its lock-conflict retries) fails each of its claims with the error.
 */
const claimBatcher = perInstance((db: Db) => naturalBatcher<CarriedClaim, Prediction | undefined>(async (claims) => {
  const alone = () => eachAlone(claims, (c) => claimCarriedAlone(db, c));
  if (claims.length === 1) return alone();
  const sorted = [...claims].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  try {
    if (await completesInOneStatement(db)) {
      // MariaDB: the transaction as one compound statement, a prepared one (one round trip, not three)
      const [sets] = await withLockRetry(() => executeRaw(db, claimBatchInOneSql(sorted.length), carriedBindings(sorted))) as [[Array<{ mg_claimed: number }>, ...unknown[]]];
      if (Number(sets[0]?.[0]?.mg_claimed) !== 1) throw NOT_ALL_CLAIMED;
    } else {
      await withLockRetry(() => db.transaction(async (trx) => {
        // not every claim took its row: roll back whole (the thrown marker), and each claim alone
        if (rawAffected(await trx.raw(carriedClaimSql(sorted.length), carriedBindings(sorted))) !== sorted.length) throw NOT_ALL_CLAIMED;
      }));
    }
  } catch (err) {
    // Any other error fails every claim of the batch, as it fails a claim alone: the handler
    // throws and its message is retried, and the retry's claim takes the row over (a COMMIT whose
    // answer was lost may have claimed it; a claim alone now would find it taken and drop it).
    if (err !== NOT_ALL_CLAIMED) throw err;
    return alone();
  }
  return claims.map((c): ItemOutcome<Prediction | undefined> => ({ ok: true, value: claimedAsCarried(c) }));
}, { max: CLAIM_BATCH_MAX }));

export async function completePrediction(
  db: Db,
  p: Prediction,
  result: { outputs: string[]; nsfw: boolean[]; inferenceMs: number },
  now: number,
): Promise<Finished> {
  // Retried whole on a deadlock: the transition, the debit and the delivery row roll back together.
  return withLockRetry(() => db.transaction(async (trx) => {
    if (!await markCompleted(trx, p, result, now)) return { recorded: false, deliveryId: null };
    // The wallet that held the price pays it: the team's for a team prediction.
    await settleFor(trx, p.payer, p.price, p.id, p.model, now, p.billing);
    // end_user_pays: the studio owner's markup, a second ledger row of the same prediction
    if (p.studioId !== null && p.studioMarkup > 0) await creditStudioOwner(trx, p, now);
    return { recorded: true, deliveryId: await deliveryFor(trx, p, now) };
  }));
}

/** What a worker finished: the prediction it claimed, its stored outputs and when. */
export interface Completion {
  p: Prediction;
  result: { outputs: string[]; nsfw: boolean[]; inferenceMs: number };
  now: number;
}

/** markCompleted's UPDATE on MariaDB/MySQL, as fixed SQL (no query building per completion); its values in COMPLETED_COLUMNS' order, then the id. */
const MARK_COMPLETED_SQL = `update predictions set status = 'completed', error = null, outputs = ?, nsfw = ?, inference_ms = ?, completed_at = ?, updated_at = ?, review_status = ? where id = ? and status = 'processing'`;

/** processing -> completed with the outputs (the guarded transition); false when the row was not `processing` any more. */
async function markCompleted(trx: Knex, p: Prediction, result: Completion['result'], now: number): Promise<boolean> {
  if (isMysql(trx)) {
    const c: Completion = { p, result, now };
    return rawAffected(await trx.raw(MARK_COMPLETED_SQL, [...COMPLETED_COLUMNS.map(([, value]) => value(c)), p.id])) === 1;
  }
  const n = await trx('predictions').where({ id: p.id, status: 'processing' }).update({
    status: 'completed', outputs: JSON.stringify(result.outputs), nsfw: JSON.stringify(result.nsfw),
    inference_ms: Math.round(result.inferenceMs), error: null, completed_at: now, updated_at: now,
    // a completed prediction with any NSFW output starts flagged for review (README "Run history")
    review_status: result.nsfw.some(Boolean) ? 'flagged' : 'unreviewed',
  });
  return affected(n) === 1;
}

/** The columns a completion sets that differ per prediction (markCompleted's, as values). */
const COMPLETED_COLUMNS: ReadonlyArray<[string, (c: Completion) => Knex.Value]> = [
  ['outputs', (c) => JSON.stringify(c.result.outputs)],
  ['nsfw', (c) => JSON.stringify(c.result.nsfw)],
  ['inference_ms', (c) => Math.round(c.result.inferenceMs)],
  ['completed_at', (c) => c.now],
  ['updated_at', (c) => c.now],
  ['review_status', (c) => (c.result.nsfw.some(Boolean) ? 'flagged' : 'unreviewed')],
];

const NOT_ALL_PROCESSING = new Error('a completion of the group found its row no longer processing');

/**
 * markCompleted for several predictions, whatever their number. `optimistic` (MariaDB/MySQL):
 * one UPDATE of every named row still `processing` (by primary key, in id order, as markPending
 * does), each with its own values (CASE id ...); MariaDB cannot say which rows an UPDATE changed,
 * so when it changed fewer than it named (a row cancelled or completed meanwhile: rare) it throws
 * NOT_ALL_PROCESSING, and the caller rolls back and runs again without `optimistic`. Otherwise
 * two statements: the rows still `processing` are locked (the same order) and read, then the
 * UPDATE moves those. Returns, per item, whether its transition succeeded; a prediction named
 * twice succeeds once (its first item).
 */
async function markManyCompleted(trx: Knex, items: readonly Completion[], optimistic: boolean): Promise<boolean[]> {
  const first = firstItems(items);
  const ids = [...first.keys()].sort();
  const mysql = isMysql(trx);
  const force = mysql ? ' force index (primary)' : '';
  let taken: Set<string>;
  if (optimistic) {
    taken = new Set(ids);
  } else {
    const locked = await rawRows<{ id: string }>(trx, `select id from predictions${force} where id in (${marks(ids.length)}) and status = 'processing'${mysql ? ' order by id for update' : ''}`, ids);
    taken = new Set(locked.map((r) => r.id));
    if (taken.size === 0) return items.map(() => false);
  }
  const moving = [...taken].sort().map((id) => items[first.get(id)!]!);
  const bindings: Knex.RawBinding[] = [];
  manyCompletedBindings(moving, bindings);
  const changed = rawAffected(await trx.raw(manyCompletedSql(moving.length, force), bindings));
  if (optimistic && changed !== moving.length) throw NOT_ALL_PROCESSING;
  return items.map((c, i) => taken.has(c.p.id) && first.get(c.p.id) === i);
}

/** Each prediction of a group once: its id and the index of its first item (a copy of a message finishing twice moves it once). */
function firstItems(items: readonly Completion[]): Map<string, number> {
  const first = new Map<string, number>();
  items.forEach((c, i) => { if (!first.has(c.p.id)) first.set(c.p.id, i); });
  return first;
}

/** manyCompletedSql's bindings for the rows `moving` (in id order), appended to `bindings`. */
function manyCompletedBindings(moving: readonly Completion[], bindings: Knex.RawBinding[]): void {
  for (const [, value] of COMPLETED_COLUMNS) for (const c of moving) bindings.push(c.p.id, value(c));
  for (const c of moving) bindings.push(c.p.id);
}

const manyCompletedText = new Map<string, string>();

/** markManyCompleted's UPDATE of `k` rows, written once per `k` (and engine). */
function manyCompletedSql(k: number, force: string): string {
  const key = `${k}${force}`;
  let sql = manyCompletedText.get(key);
  if (sql === undefined) {
    const when = Array.from({ length: k }, () => 'when ? then ?').join(' ');
    const sets = COMPLETED_COLUMNS.map(([column]) => `${column} = case id ${when} end`);
    sql = `update predictions${force} set status = 'completed', error = null, ${sets.join(', ')} where id in (${marks(k)}) and status = 'processing'`;
    manyCompletedText.set(key, sql);
  }
  return sql;
}

/**
 * Whether completePredictions may charge this prediction together with others:
 * a priced one whose hold's list price and discount the row carries, and no studio markup to pay
 * out (a second wallet: completePrediction's creditStudioOwner). The rest complete alone.
 */
export function groupable(p: Prediction): boolean {
  return p.price > 0 && !(p.studioId !== null && p.studioMarkup > 0) && p.billing !== undefined && p.billing.listPrice !== null;
}

/**
 * Completes several predictions (all `groupable`), of one paying wallet or several, in one
 * transaction, the worker's group commit (workers/completions.ts): their guarded transitions
 * (markManyCompleted: rows locked in id order, so two groups lock in the same order); then one move
 * of the wallets for the ones whose transition succeeded (settleWallets: the wallets locked in the
 * fixed order submits take them, one UPDATE per wallet table, every charge's ledger row in one
 * INSERT, each wallet's rows in sequence; settleManyFor when one wallet pays them all); then their
 * webhook delivery rows, in one INSERT. On MariaDB that transaction is first sent as one statement
 * (completeInOne). A prediction no longer `processing` (cancelled meanwhile, completed by
 * another worker) is not charged: `recorded: false`, as completePrediction answers. Retried whole
 * on a deadlock. The answers are in the order of `items`.
 */
export async function completePredictions(db: Db, items: readonly Completion[]): Promise<Finished[]> {
  if (items.length === 0) return [];
  for (const { p } of items) if (!groupable(p)) throw new Error(`prediction ${p.id} cannot be charged in a group`);
  if (!isMysql(db)) return completeGroup(db, items, false);
  // MariaDB: the whole transaction in one statement; a row no longer processing, or a wallet with
  // expiring grants (or none), rolls it back and goes down the paths below
  let settled: 'wallet' | 'not all processing' | undefined;
  if (await completesInOneStatement(db)) {
    const done = await withLockRetry(() => completeInOne(db, items));
    if (Array.isArray(done)) return done;
    settled = done;
  }
  // MariaDB/MySQL: first the transition alone (markManyCompleted optimistic: one statement fewer);
  // a group with a row no longer processing rolls back and runs again, locking and reading first
  if (settled !== 'not all processing') {
    try {
      return await completeGroup(db, items, true);
    } catch (err) {
      if (err !== NOT_ALL_PROCESSING) throw err;
    }
  }
  return completeGroup(db, items, false);
}

/** Whether completePredictions sends a group as one statement (MariaDB): then a completion alone is best sent as a group of one too. */
export async function completesInOneStatement(db: Db): Promise<boolean> {
  return isMysql(db) && await answersReturning(db);
}

/**
 * A group's transaction as one MariaDB compound statement (`begin not atomic ... end`, as a batch
 * of submits holds, db/submit-batch.ts holdFirst), so that the wallets' row locks are held only
 * while MariaDB runs it, never across a round trip to the worker or a wait of the worker for a
 * core (README "No request lost, none charged twice"): it starts the transaction; moves every
 * named row still `processing` (markManyCompleted's optimistic UPDATE, rows in id order); takes
 * each wallet's sum from held (settleWalletsSql: the wallets in the order submits lock them, only
 * a wallet with no expiring grant); writes every charge's ledger row and the delivery rows; and
 * commits. When the UPDATE changed fewer rows than it named (a prediction cancelled or completed
 * meanwhile), or a wallet's UPDATE did not match (expiring grants to spend, whose read and
 * per-grant UPDATEs consumeGrants makes, or no row), it rolls back before anything is written and
 * answers which, and the caller takes the multi-statement path. Any error inside it rolls the
 * transaction back in its exit handler and is raised again (withLockRetry retries a deadlock).
 */
async function completeInOne(db: Db, items: readonly Completion[]): Promise<Finished[] | 'wallet' | 'not all processing'> {
  const first = firstItems(items);
  const moving = [...first.keys()].sort().map((id) => items[first.get(id)!]!);
  const bindings: Knex.RawBinding[] = [];
  manyCompletedBindings(moving, bindings);
  const steps = [`${manyCompletedSql(moving.length, ' force index (primary)')};`, `if row_count() <> ${moving.length} then set outcome = 'not all processing'; end if;`];
  const settle = settleWalletsSql(walletCharges(moving), bindings);
  if (settle === null) throw new Error('a group of completions with nothing to charge');
  for (const u of settle.updates) steps.push(`if outcome = 'committed' then ${u.sql}; if row_count() <> ${u.rows} then set outcome = 'wallet'; end if; end if;`);
  const { deliveries, finished } = deliveriesOf(items, (i) => first.get(items[i]!.p.id) === i);
  const write = [`${settle.ledger};`];
  if (deliveries.length > 0) {
    const insert = deliveriesInsertSql(deliveries);
    write.push(`${insert.sql};`);
    bindings.push(insert.binding);
  }
  const sql = `begin not atomic
declare outcome varchar(20) default 'committed';
declare exit handler for sqlexception begin rollback; resignal; end;
start transaction;
${steps.join('\n')}
if outcome = 'committed' then
${write.join('\n')}
commit;
else
rollback;
end if;
select outcome as mg_outcome;
end`;
  const [sets] = await executeRaw(db, sql, bindings) as [[Array<{ mg_outcome: string }>, ...unknown[]]];
  const outcome = sets[0]?.[0]?.mg_outcome;
  if (outcome === 'committed') return finished;
  if (outcome === 'wallet' || outcome === 'not all processing') return outcome;
  throw new Error(`a group of completions answered ${String(outcome)}`);
}

/** The charges of the completions whose transition succeeded, per paying wallet, each wallet's in id order. */
function walletCharges(recorded: readonly Completion[]): WalletCharges[] {
  const byWallet = new Map<string, WalletCharges & { charges: Charge[] }>();
  for (const { p, now } of [...recorded].sort((a, b) => (a.p.id < b.p.id ? -1 : a.p.id > b.p.id ? 1 : 0))) {
    const key = ownerKey(p.payer);
    let group = byWallet.get(key);
    if (group === undefined) byWallet.set(key, group = { payer: p.payer, charges: [] });
    group.charges.push({ amount: p.price, predictionId: p.id, model: p.model, now, listPrice: p.billing!.listPrice, discountPercent: p.billing!.discountPercent });
  }
  return [...byWallet.values()];
}

/** The delivery rows of a group's recorded completions that have a webhook, and every item's answer. */
function deliveriesOf(items: readonly Completion[], recorded: (i: number) => boolean): { deliveries: Array<NewDelivery & { now: number }>; finished: Finished[] } {
  const deliveries: Array<NewDelivery & { now: number }> = [];
  const finished = items.map(({ p, now }, i): Finished => {
    if (!recorded(i)) return { recorded: false, deliveryId: null };
    if (!p.webhookUrl) return { recorded: true, deliveryId: null };
    const id = newDeliveryId();
    deliveries.push({ id, predictionId: p.id, userId: p.userId, url: p.webhookUrl, now });
    return { recorded: true, deliveryId: id };
  });
  return { deliveries, finished };
}

async function completeGroup(db: Db, items: readonly Completion[], optimistic: boolean): Promise<Finished[]> {
  return withLockRetry(() => db.transaction(async (trx) => {
    const recorded = await markManyCompleted(trx, items, optimistic);
    await settleWallets(trx, walletCharges(items.filter((_, i) => recorded[i])));
    // the webhook delivery rows of the group in one INSERT, after the charge: their foreign key to
    // users takes a shared lock on the user's row, the wallet the charge then has to lock
    // exclusively, so writing them first would not shorten the wallet's lock and would let two
    // groups of one user deadlock (both shared, both waiting to upgrade)
    const { deliveries, finished } = deliveriesOf(items, (i) => recorded[i]!);
    await insertDeliveries(trx, deliveries);
    return finished;
  }));
}

/** Credits the studio owner's wallet (user or team) the markup of a charged prediction: a `studio_revenue` row naming it. */
async function creditStudioOwner(trx: Knex, p: Prediction, now: number): Promise<void> {
  const studio = p.studioId === null ? undefined : await studioOwner(trx, p.studioId);
  if (!studio) return;
  await creditWallet(trx, studio.owner, p.studioMarkup, 'studio_revenue', `studio ${studio.slug}: ${p.model}`, now, { predictionId: p.id });
}

export async function failPrediction(db: Db, p: Prediction, error: string, now: number, code: string | null = null): Promise<Finished> {
  return withLockRetry(() => db.transaction(async (trx) => {
    const n = await trx('predictions').where({ id: p.id, status: 'processing' })
      .update({ status: 'failed', error: error.slice(0, 2000), error_code: code, completed_at: now, updated_at: now });
    if (affected(n) !== 1) return { recorded: false, deliveryId: null };
    await releaseFor(trx, p.payer, p.price, { predictionId: p.id, model: p.model, now });
    return { recorded: true, deliveryId: await deliveryFor(trx, p, now) };
  }));
}

/** A retryable failure: back to pending until the delayed message comes round again. */
export async function requeuePrediction(db: Db, id: string, error: string, now: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).update({ status: 'pending', error: error.slice(0, 2000), updated_at: now }));
}

/**
 * A worker shutting down hands the prediction back unfinished: processing -> pending, so that
 * the next worker (RabbitMQ redelivers the message; the embedded queue republishes on start)
 * claims it. The attempt is not counted against the model: nothing failed.
 */
export async function handBackPrediction(db: Db, id: string, now: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).update({ status: 'pending', updated_at: now }));
}

/**
 * Embedded start-up only (one process, nothing else running): rows left `processing` by a
 * process that stopped belong to no worker any more, so they go back to `pending`.
 */
export async function releaseOrphanedClaims(db: Db, now: number): Promise<number> {
  return affected(await db('predictions').where('status', 'processing').update({ status: 'pending', updated_at: now }));
}

/** Requests the queue confirmed long ago that no worker has claimed: their message may be lost. */
export async function findStalePending(db: Db, olderThan: number, limit: number): Promise<Array<{ id: string; reqId: string | null }>> {
  const q = db('predictions').select('id', 'http_request_id').where('status', 'pending').andWhere('updated_at', '<', olderThan);
  // MariaDB/MySQL has no (status, updated_at) index (migration 20261127_0201): a row pending since before the cut-off was created before it
  if (isMysql(db)) q.andWhere('created_at', '<', olderThan).orderBy('created_at', 'asc');
  else q.orderBy('updated_at', 'asc');
  const rows = await q.limit(limit);
  return rows.map((r: { id: string; http_request_id: string | null }) => ({ id: r.id, reqId: r.http_request_id }));
}

/** The sweeper published a stale pending request again: restart its clock so it is not republished every sweep. */
export async function touchPending(db: Db, id: string, now: number): Promise<void> {
  // The sweeper races claims and submits on the same row: a deadlock is retried, not thrown out of the sweep.
  await withLockRetry(() => db('predictions').where({ id, status: 'pending' }).update({ updated_at: now }));
}

/** Cancels the owner's prediction if it is still running; the hold goes back to the wallet that paid it. */
export async function cancelPrediction(db: Db, owner: Owner, id: string, now: number): Promise<'cancelled' | 'not-found' | 'finished'> {
  // Retried whole on a deadlock or lock wait timeout (it takes the wallet row a hold or a charge may hold): the transition and the release roll back together.
  return withLockRetry(() => db.transaction(async (trx) => {
    const row = await trx<PredictionRow>('predictions').where('id', id).andWhere(ownerWhere(owner)).first();
    if (!row) return 'not-found';
    const n = await trx('predictions').where('id', id).andWhere(ownerWhere(owner)).whereIn('status', ['queued', 'pending', 'processing'])
      .update({ status: 'cancelled', completed_at: now, updated_at: now });
    if (affected(n) !== 1) return 'finished';
    await releaseFor(trx, payerOfRow(row), num(row.price), { predictionId: id, model: String(row.model), now });
    return 'cancelled';
  }));
}

/** Maps a row selected elsewhere (e.g. joined to its webhook delivery). */
export function predictionFromRow(row: Record<string, unknown>): Prediction {
  return toPrediction(row as unknown as PredictionRow);
}

/** The owner's prediction; another owner's id is as unknown as a made-up one. */
export async function findPrediction(db: Db, owner: Owner, id: string): Promise<Prediction | undefined> {
  // every result read runs it: fixed SQL, one text per owner kind (ownerSql's two constants)
  const scope = ownerSql(owner);
  let sql = findSql.get(scope.sql);
  if (sql === undefined) findSql.set(scope.sql, sql = `SELECT * FROM predictions WHERE id = ? AND ${scope.sql} LIMIT 1`);
  const [row] = await rawRows<PredictionRow>(db, sql, [id, ...scope.bindings]);
  return row ? toPrediction(row) : undefined;
}
const findSql = new Map<string, string>();

/** What the result route shows of a prediction (lib/prediction-view.ts) and needs to decide who sees it (handlers/guards.ts). */
export type PredictionResult = Pick<Prediction, 'id' | 'model' | 'status' | 'isTest' | 'outputs' | 'nsfw' | 'error' | 'errorCode' | 'inferenceMs'
  | 'createdAt' | 'startedAt' | 'completedAt' | 'outputsExpiredAt' | 'embedCodeId' | 'embedVisitor'>;

/**
 * The owner's prediction as the result route shows it, like findPrediction but reading only those
 * columns (every poll runs it: not the input, nor the billing and upstream columns).
 */
export async function findPredictionResult(db: Db, owner: Owner, id: string): Promise<PredictionResult | undefined> {
  // an id of other characters is compared by MariaDB's collation in ways a Map cannot repeat (accents, trailing spaces): alone
  if (db.isTransaction || !BATCHED_ID.test(id)) return findResultAlone(db, { owner, id });
  return resultBatcher(db)({ owner, id, key: isMysql(db) ? id.toLowerCase() : id });
}

/** Ids whose equality under MariaDB's utf8mb4_general_ci is their lower case (SQLite compares them byte for byte). */
const BATCHED_ID = /^[0-9A-Za-z_-]+$/;

interface ResultRead {
  owner: Owner;
  id: string;
  /** the id as the engine compares it: lower case on MariaDB, as sent on SQLite */
  key?: string;
}

async function findResultAlone(db: Db, read: ResultRead): Promise<PredictionResult | undefined> {
  const scope = ownerSql(read.owner);
  let sql = findResultSql.get(scope.sql);
  if (sql === undefined) findResultSql.set(scope.sql, sql = `SELECT ${RESULT_COLUMNS} FROM predictions WHERE id = ? AND ${scope.sql} LIMIT 1`);
  const [r] = await preparedRows<PredictionRow>(db, sql, [read.id, ...scope.bindings]);
  return r ? toResult(r) : undefined;
}

/** Most reads one statement answers. */
const RESULT_BATCH_MAX = 100;
const sameOwner = (a: Owner, b: Owner) => a.userId === b.userId && a.teamId === b.teamId;

/**
 * The result reads of this process that arrive while one is in flight share the next statement
 * (naturalBatcher): `WHERE (id = ? AND <owner>) OR (id = ? AND <owner>) ...`, each read's owner
 * scoping written into the query as alone, so another owner's row is never fetched. A batch names
 * an id (as the engine compares it) under one owner only (a read of the same id by another owner
 * waits for the next batch), so a row answers every read of its id in the batch. If the statement
 * fails, each read alone.
 */
const resultBatcher = perInstance((db: Db) => naturalBatcher<ResultRead, PredictionResult | undefined>(async (reads) => {
  if (reads.length === 1) return eachAlone(reads, (r) => findResultAlone(db, r));
  const conditions: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const named = new Set<string>();
  for (const r of reads) {
    // the same read twice is asked once
    if (named.has(r.key!)) continue;
    named.add(r.key!);
    const scope = ownerSql(r.owner);
    conditions.push(`(id = ? AND ${scope.sql})`);
    bindings.push(r.id, ...scope.bindings);
  }
  let rows: PredictionRow[];
  try {
    // by primary key on MariaDB: it may otherwise plan the OR as a scan of an owner index
    rows = await preparedRows<PredictionRow>(db, `SELECT ${RESULT_COLUMNS} FROM predictions${isMysql(db) ? ' FORCE INDEX (PRIMARY)' : ''} WHERE ${conditions.join(' OR ')}`, bindings);
  } catch {
    return eachAlone(reads, (r) => findResultAlone(db, r));
  }
  const keyOf = isMysql(db) ? (id: string) => id.toLowerCase() : (id: string) => id;
  const byKey = new Map(rows.map((r) => [keyOf(r.id), toResult(r)]));
  return reads.map((r): ItemOutcome<PredictionResult | undefined> => ({ ok: true, value: byKey.get(r.key!) }));
}, { max: RESULT_BATCH_MAX, compatible: (batch, read) => batch.every((b) => b.key !== read.key || sameOwner(b.owner, read.owner)) }));

function toResult(r: PredictionRow): PredictionResult {
  return {
    id: r.id,
    model: r.model,
    status: r.status as PredictionStatus,
    isTest: bool(r.is_test),
    outputs: jsonOr<string[]>(r.outputs, []),
    nsfw: jsonOr<boolean[]>(r.nsfw, []),
    error: r.error,
    errorCode: r.error_code ?? null,
    inferenceMs: numOrNull(r.inference_ms),
    createdAt: num(r.created_at),
    startedAt: numOrNull(r.started_at),
    completedAt: numOrNull(r.completed_at),
    outputsExpiredAt: numOrNull(r.outputs_expired_at ?? null),
    embedCodeId: numOrNull(r.embed_code_id ?? null),
    embedVisitor: r.embed_visitor ?? null,
  };
}
/** The columns a result read selects (test/bench/floor.ts reads the same). */
export const RESULT_COLUMNS = 'id, model, status, is_test, outputs, nsfw, error, error_code, inference_ms, created_at, started_at, completed_at, outputs_expired_at, embed_code_id, embed_visitor';
const findResultSql = new Map<string, string>();

/** Unscoped, for internal use only (workers, sweeps): never with an id a client sent. */
export async function findPredictionById(db: Db, id: string): Promise<Prediction | undefined> {
  const row = await db<PredictionRow>('predictions').where('id', id).first();
  return row ? toPrediction(row) : undefined;
}

/** Requests whose publish was never confirmed (broker down at submit, or the API died before the confirm). */
export async function findUnpublished(db: Db, olderThan: number, limit: number): Promise<Prediction[]> {
  const rows = await db<PredictionRow>('predictions').where('status', 'queued').andWhere('created_at', '<', olderThan)
    .orderBy('created_at', 'asc').limit(limit);
  return rows.map(toPrediction);
}

/** Everything not finished: what an in-process queue lost when its process stopped. */
export async function findUnfinished(db: Db, limit: number, afterId = ''): Promise<Prediction[]> {
  const rows = await db<PredictionRow>('predictions').whereIn('status', ['queued', 'pending', 'processing'])
    .andWhere('id', '>', afterId).orderBy('id', 'asc').limit(limit);
  return rows.map(toPrediction);
}

/**
 * Records the provider's job the moment the provider accepted it, so that no later claim of this
 * prediction submits again. Only while the claim holds (`processing`) and no job is recorded yet;
 * false when either changed (cancelled meanwhile, or another worker recorded one first).
 */
export async function recordUpstreamJob(db: Db, id: string, job: { provider: string; id: string; status: string; model?: string }, now: number): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).whereNull('upstream_job_id').update({
    upstream_name: job.provider.slice(0, 64), upstream_job_id: job.id.slice(0, 191), upstream_status: job.status.slice(0, 32),
    ...(job.model !== undefined ? { upstream_model: job.model.slice(0, 191) } : {}),
    upstream_polls: 0, upstream_submitted_at: now, updated_at: now,
  }));
  return affected(n) === 1;
}

/**
 * Moves the poll chain on from `from` to `from + 1`, recording the provider's status; false when
 * another copy of the chain already moved it (this copy is then dropped) or the prediction is no
 * longer running.
 */
export async function advanceUpstreamPolls(db: Db, id: string, from: number, status: string, now: number, progress: UpstreamProgress = {}): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_polls: from })
    .update({
      upstream_polls: from + 1, upstream_status: status.slice(0, 32), updated_at: now,
      // what the provider did not report this time is no longer known
      upstream_queue_position: progress.queuePosition ?? null, upstream_progress: progress.progress ?? null,
    }));
  return affected(n) === 1;
}

/**
 * A verified provider callback about the job whose chain is at `from`: moves the chain to
 * `from + 1` (so the delayed poll message `from` becomes a stale copy) for the caller to publish
 * poll `from + 1` at once. False when the prediction is not running that job any more, or another
 * callback or poll moved the chain first.
 */
export async function takeUpstreamCallback(db: Db, id: string, jobId: string, from: number, now: number): Promise<boolean> {
  const n = await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_job_id: jobId, upstream_polls: from })
    .update({ upstream_polls: from + 1, updated_at: now }));
  return affected(n) === 1;
}

/** Undoes advanceUpstreamPolls when the next poll could not be published (the current message is retried instead). */
export async function rewindUpstreamPolls(db: Db, id: string, from: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing', upstream_polls: from }).update({ upstream_polls: from - 1 }));
}

/**
 * The provider's last known status word (any prediction state: a cancelled one records the
 * provider's cancel). Set when the job ended, so its queue position and progress are over too.
 */
export async function setUpstreamStatus(db: Db, id: string, status: string): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id }).whereNotNull('upstream_job_id')
    .update({ upstream_status: status.slice(0, 32), upstream_queue_position: null, upstream_progress: null }));
}

/**
 * Upstream jobs whose poll chain seems lost (a purged queue): running, with a job recorded, and
 * not touched by a poll for longer than any poll wait.
 */
export async function findStalledUpstream(db: Db, olderThan: number, limit: number): Promise<Array<{ id: string; polls: number; reqId: string | null }>> {
  const rows = await db('predictions').select('id', 'upstream_polls', 'http_request_id').where('status', 'processing').whereNotNull('upstream_job_id')
    .andWhere('updated_at', '<', olderThan).orderBy('updated_at', 'asc').limit(limit);
  return rows.map((r: { id: string; upstream_polls: number | string; http_request_id: string | null }) => ({ id: r.id, polls: num(r.upstream_polls), reqId: r.http_request_id }));
}

/** Restarts a stalled upstream job's clock once its poll was published again, so the sweeper does not publish it every sweep. */
export async function touchUpstream(db: Db, id: string, now: number): Promise<void> {
  await withLockRetry(() => db('predictions').where({ id, status: 'processing' }).whereNotNull('upstream_job_id').update({ updated_at: now }));
}
