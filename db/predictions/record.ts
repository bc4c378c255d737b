// The prediction record (README "Predictions"): its type, how a row maps to it, the reads of one
// prediction (scoped to its owner, or by id for workers) and the request ids. A prediction's state
// moves only through the store (db/store/types.ts):
//   queued -> pending -> processing -> completed | failed
//   processing -> pending (retry after a retryable adapter error, or handed back at shutdown)
//   queued | pending | processing -> cancelled
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../knex.ts';
import { bool, jsonOr, num, numOrNull, rawRows } from '../knex.ts';
import { ownerSql } from '../owner.ts';
import type { Owner } from '../owner.ts';
import { cleanMetadata } from '../../lib/prediction-view.ts';
import type { ProviderMetadata } from '../../lib/prediction-view.ts';

export type PredictionStatus = 'queued' | 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL: readonly PredictionStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Narrows a query of predictions (`table` names it) to the runs whose price is spent or held, which
 * key spend limits, monthly budgets, embed caps and studio usage sum: every run but the failed ones
 * (nothing charged) and the cancelled asynchronous ones (their hold went back; their price stays
 * what was held). A cancelled inline call (POST /v1/chat/completions, marked by its usage row) was
 * charged the answer it relayed before it stopped: its price is that charge once it settles, its
 * hold until then, and 0 when nothing was charged.
 */
export function spentOrHeld(q: Knex.QueryBuilder, table = 'predictions'): Knex.QueryBuilder {
  return q.whereNot(`${table}.status`, 'failed').andWhere((w) => {
    w.whereNot(`${table}.status`, 'cancelled').orWhereExists(usageRowOf(table));
  });
}

/**
 * The subquery of a prediction's usage row (prediction_usage), for whereExists / whereNotExists:
 * the row marks an inline call (POST /v1/chat/completions); an asynchronous language model's
 * prediction gets one only with its completion. `table` names the predictions in the outer query.
 */
export function usageRowOf(table = 'predictions'): (this: Knex.QueryBuilder) => void {
  return function usageRow(this: Knex.QueryBuilder) {
    this.select(1).from('prediction_usage').whereRaw('prediction_usage.prediction_id = ??', [`${table}.id`]);
  };
}

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
  /** while processing: its place in the provider's queue (0: next), when the provider says */
  queuePosition: number | null;
  /** while processing: 0..1, when the provider (or local adapter) says */
  progress: number | null;
  /** the run's log lines as stored (lib/run-logs.ts parseRunLogs); null when none came */
  logsText: string | null;
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


export interface PredictionRow {
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
  logs?: string | null;
  outputs_expired_at?: number | string | null;
  http_request_id?: string | null;
  embed_code_id?: number | string | null;
  embed_visitor?: string | null;
  /** a result read's join: prediction_costs.metadata (RESULT_SELECT) */
  provider_metadata?: string | null;
  studio_id?: number | string | null;
  studio_markup?: number | string | null;
  payer_user_id?: number | string | null;
  payer_team_id?: number | string | null;
  list_price?: number | string | null;
  discount_percent?: number | string | null;
}

/** Who pays a prediction: its payer columns when a studio's owner pays (owner_pays), else its owner. */
export function payerOfRow(r: Pick<PredictionRow, 'user_id' | 'team_id' | 'payer_user_id' | 'payer_team_id'>): Owner {
  if (r.payer_user_id !== null && r.payer_user_id !== undefined) return { userId: num(r.payer_user_id), teamId: numOrNull(r.payer_team_id ?? null) };
  return { userId: num(r.user_id), teamId: numOrNull(r.team_id ?? null) };
}

export function toPrediction(r: PredictionRow): Prediction {
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
    ...runningProgress(r),
    logsText: r.logs ?? null,
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

/** Queue position and progress mean something only while the prediction runs. */
function runningProgress(r: Pick<PredictionRow, 'status' | 'upstream_queue_position' | 'upstream_progress'>): { queuePosition: number | null; progress: number | null } {
  if (r.status !== 'processing') return { queuePosition: null, progress: null };
  const progress = r.upstream_progress === null || r.upstream_progress === undefined ? null : Number(r.upstream_progress);
  return { queuePosition: numOrNull(r.upstream_queue_position ?? null), progress: progress === null || !Number.isFinite(progress) ? null : Math.min(1, Math.max(0, progress)) };
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
  /**
   * a language model's price rule as held (spec/pricing.ts storePriceRule): its charge by usage
   * at completion uses it, whatever the catalog says then
   */
  priceRule?: string | null;
}

/** Where a prediction was submitted from: an API credential, a dashboard session, or a partner surface. */
export type PredictionSource = 'api' | 'dashboard' | 'embed' | 'agent_embed' | 'studio';

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

/** The stored log of the owner's prediction (lib/run-logs.ts parseRunLogs reads it); null when none. */
export async function findRunLogs(db: Db, owner: Owner, id: string): Promise<string | null> {
  const scope = ownerSql(owner);
  const [row] = await rawRows<{ logs: string | null }>(db, `SELECT logs FROM predictions WHERE id = ? AND ${scope.sql} LIMIT 1`, [id, ...scope.bindings]);
  return row?.logs ?? null;
}

/** What the result route shows of a prediction (lib/prediction-view.ts) and needs to decide who sees it (handlers/guards.ts). */
export type PredictionResult = Pick<Prediction, 'id' | 'model' | 'status' | 'isTest' | 'outputs' | 'nsfw' | 'error' | 'errorCode' | 'inferenceMs'
  | 'createdAt' | 'startedAt' | 'completedAt' | 'outputsExpiredAt' | 'embedCodeId' | 'embedVisitor' | 'queuePosition' | 'progress'> & {
  /** what the provider said of the completed result (prediction_costs.metadata, read with the row); undefined when nothing */
  providerMetadata?: ProviderMetadata;
};

/** A row (RESULT_COLUMNS at least) as the result route shows it. */
export function toResult(r: PredictionRow): PredictionResult {
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
    ...runningProgress(r),
    ...metadataOf(r.provider_metadata),
  };
}

/** prediction_costs.metadata read with a prediction's row, checked again (lib/prediction-view.ts); empty when there is none or it does not parse. */
export function metadataOf(raw: string | null | undefined): { providerMetadata?: ProviderMetadata } {
  if (!raw) return {};
  try {
    const metadata = cleanMetadata(JSON.parse(raw));
    return metadata ? { providerMetadata: metadata } : {};
  } catch {
    return {};
  }
}

/**
 * The provider metadata kept for a completed prediction (prediction_costs.metadata), as the result
 * and the webhook show it, for a prediction read without it; undefined when there is none (or the
 * prediction did not complete).
 */
export async function providerMetadataOf(db: Db, p: { id: string; status: string }): Promise<ProviderMetadata | undefined> {
  if (p.status !== 'completed') return undefined;
  const row = await db('prediction_costs').where({ prediction_id: p.id }).first('metadata') as { metadata: string | null } | undefined;
  return metadataOf(row?.metadata).providerMetadata;
}

/** The columns a result read selects (test/bench/floor.ts reads the same). */
export const RESULT_COLUMNS = 'id, model, status, is_test, outputs, nsfw, error, error_code, inference_ms, created_at, started_at, completed_at, outputs_expired_at, embed_code_id, embed_visitor, upstream_queue_position, upstream_progress';

/**
 * What a result read selects and from where: the row's RESULT_COLUMNS and, in the same statement,
 * the provider's metadata of a completed run (prediction_costs, by its primary key), so a read stays
 * one round trip. `p` is the prediction, `c` its cost row; conditions name predictions' columns.
 */
export const RESULT_SELECT = `${RESULT_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')}, c.metadata AS provider_metadata`;
export const RESULT_FROM = 'predictions p LEFT JOIN prediction_costs c ON c.prediction_id = p.id';

/** The columns a sandbox insert writes, in its bindings' order (test/bench/floor.ts writes the same). */
export const SANDBOX_COLUMNS = [
  'id', 'user_id', 'team_id', 'api_key_id', 'model', 'status', 'is_test', 'input', 'outputs', 'nsfw',
  'price', 'webhook_url', 'http_request_id', 'inference_ms', 'created_at', 'started_at', 'completed_at', 'updated_at', 'source', 'studio_id',
];

/** The price rule a language model's prediction was held by (NewPrediction.priceRule); null when none was kept. */
export async function heldPriceRule(db: Db, id: string): Promise<string | null> {
  const row = await db('predictions').where('id', id).first<{ price_rule: string | null } | undefined>('price_rule');
  return row?.price_rule ?? null;
}

/**
 * Whether a prediction's output files may still be in the store, for serving them by address
 * (their URLs are unguessable capabilities, so no owner applies): 'kept', 'expired' (retention
 * removed them), or 'gone' (no such prediction: never made, or erased with its account).
 */
export async function outputsState(db: Db, id: string): Promise<'kept' | 'expired' | 'gone'> {
  const row = await db('predictions').where('id', id).first<{ outputs_expired_at: number | string | null } | undefined>('outputs_expired_at');
  if (!row) return 'gone';
  return row.outputs_expired_at === null ? 'kept' : 'expired';
}

/** Unscoped, for internal use only (workers, sweeps): never with an id a client sent. */
export async function findPredictionById(db: Db, id: string): Promise<Prediction | undefined> {
  const row = await db<PredictionRow>('predictions').where('id', id).first();
  return row ? toPrediction(row) : undefined;
}
