// Run history, gallery and review (README "Run history, gallery and review"). The owner
// (the caller, or a team through `team_id`) was resolved by the route bridge; db/run-history.ts
// scopes every query with it. A sandbox key sees sandbox predictions only, as everywhere else.
import type { App } from '../lib/context.ts';
import type { Handler, ReplyOf } from './types.ts';
import { ConflictError, NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { hidePredictions, listHistory, setReviewStatus } from '../db/run-history.ts';
import type { HistoryEntry, HistoryFilter } from '../db/run-history.ts';

type UsageLog = ReplyOf<'getRunHistory'>['items'][number];
type GalleryItem = ReplyOf<'getGallery'>['items'][number];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function usageLog(app: App, p: HistoryEntry): UsageLog {
  const view = predictionView(app, p);
  return {
    id: p.id,
    request_id: p.id,
    model: p.model,
    status: p.status,
    review_status: p.reviewStatus,
    reviewed_at: iso(p.reviewedAt),
    reviewed_by: p.reviewedBy,
    source: p.source,
    api_key: p.apiKeyId === null ? null : { id: p.apiKeyId, name: p.apiKeyName },
    outputs: view.outputs,
    outputs_expired: view.outputs_expired,
    has_nsfw_contents: view.has_nsfw_contents,
    team_id: p.teamId,
    cost: p.status === 'completed' ? p.price : 0,
    is_test: p.isTest,
    created_at: view.created_at,
    completed_at: view.completed_at,
  };
}

const DAY_MS = 86_400_000;

/** page, page_size and include_count with the spec's defaults (validation applied them; the types keep them optional) */
function pagingOf(query: { page?: number; page_size?: number; include_count?: boolean }, defaultSize: number) {
  return { page: query.page ?? 1, pageSize: query.page_size ?? defaultSize, count: query.include_count ?? true };
}

function reply<T>(items: T[], paging: { page: number; pageSize: number }, page: { total: number | null; hasMore: boolean }) {
  return { items, page: paging.page, page_size: paging.pageSize, total: page.total, has_more: page.hasMore };
}

/** GET /app/get_run_history_data */
export const getRunHistory: Handler<'getRunHistory'> = async ({ app, caller, query }) => {
  const filter: HistoryFilter = { sandboxOnly: caller.isTest, ...(query.review_status ? { reviewStatus: query.review_status } : {}) };
  const paging = pagingOf(query, 20);
  const page = await listHistory(app.db, caller.owner, filter, paging, app.clock());
  return reply(page.items.map((p) => usageLog(app, p)), paging, page);
};

/** GET /app/get_run_history_data_by_search */
export const searchRunHistory: Handler<'searchRunHistory'> = async ({ app, caller, query }) => {
  const filter: HistoryFilter = { sandboxOnly: caller.isTest };
  if (query.request_id !== undefined) filter.requestId = query.request_id;
  if (query.model_name !== undefined) filter.model = query.model_name;
  if (query.status !== undefined) filter.status = query.status;
  if (query.review_status !== undefined) filter.reviewStatus = query.review_status;
  if (query.q !== undefined && query.q !== null) filter.q = query.q;
  if (query.created_at !== undefined) {
    // the spec's `format: date` checked the shape; the day is UTC
    const from = Date.parse(`${query.created_at}T00:00:00Z`);
    if (!Number.isFinite(from)) throw new ValidationFailedError([{ loc: ['query', 'created_at'], msg: 'not a calendar date (YYYY-MM-DD)', type: 'value_error' }]);
    filter.createdFrom = from;
    filter.createdTo = from + DAY_MS;
  }
  const paging = pagingOf(query, 20);
  const page = await listHistory(app.db, caller.owner, filter, paging, app.clock());
  return reply(page.items.map((p) => usageLog(app, p)), paging, page);
};

/** The models whose x-model.output is `kind`. */
function modelsOf(app: App, kind: string): string[] {
  return [...app.spec.models.values()].filter((m) => m.output === kind).map((m) => m.operationId);
}

/** GET /app/get_gallery_data: one item per stored output file; rejected ones only when asked for. */
export const getGallery: Handler<'getGallery'> = async ({ app, caller, query }) => {
  const filter: HistoryFilter = { sandboxOnly: caller.isTest, withOutputs: true };
  if (query.media_type !== undefined && query.media_type !== 'all') filter.models = modelsOf(app, query.media_type);
  if (query.review_status) filter.reviewStatus = query.review_status;
  else filter.excludeReviewStatus = 'rejected';
  const paging = pagingOf(query, 24);
  const page = await listHistory(app.db, caller.owner, filter, paging, app.clock());
  const items: GalleryItem[] = [];
  for (const p of page.items) {
    const kind = app.spec.models.get(p.model)?.output;
    p.outputs.forEach((key, index) => items.push({
      request_id: p.id,
      model: p.model,
      index,
      url: app.storage.url(key),
      // a model no longer in the spec: its files are shown as images, the common case
      media_type: kind ?? 'image',
      has_nsfw_content: p.nsfw[index] ?? false,
      review_status: p.reviewStatus,
      created_at: new Date(p.createdAt).toISOString(),
    }));
  }
  return reply(items, paging, page);
};

/** PATCH /app/usage_logs/{id}/review_status */
export const updateReviewStatus: Handler<'updateReviewStatus'> = async ({ app, caller, params, body }) => {
  const now = app.clock();
  const { updated } = await setReviewStatus(app.db, caller.owner, [params.id], body.review_status, caller.userId, now, caller.isTest);
  if (!updated.length) throw new NotFoundError('prediction not found');
  return { id: params.id, review_status: body.review_status, reviewed_by: caller.userId, reviewed_at: new Date(now).toISOString() };
};

/** PATCH /app/usage_logs/bulk_review_status: ids the owner cannot see are skipped and listed. */
export const bulkUpdateReviewStatus: Handler<'bulkUpdateReviewStatus'> = async ({ app, caller, body }) => {
  const { updated, skipped } = await setReviewStatus(app.db, caller.owner, body.ids, body.review_status, caller.userId, app.clock(), caller.isTest);
  return { updated: updated.length, skipped };
};

/**
 * POST /app/usage_logs/bulk_delete: hides finished predictions and removes their files. A running
 * one refuses the batch (409) before anything changes: its worker may still be writing files.
 */
export const bulkDeleteUsageLogs: Handler<'bulkDeleteUsageLogs'> = async ({ app, caller, body }) => {
  const outcome = await hidePredictions(app.db, caller.owner, body.ids, app.clock(), caller.isTest);
  if (!outcome.ok) {
    throw new ConflictError(`these predictions are still running; cancel them first (nothing was deleted): ${outcome.running.join(', ')}`);
  }
  for (const p of outcome.hidden) {
    // the rows are hidden already; a file that cannot be removed now is logged, not a failed request
    await app.storage.removeOutputs(p.id, p.outputs).catch((err: unknown) => {
      app.log.warn({ err, predictionId: p.id }, 'bulk delete: removing output files failed');
    });
  }
  return { deleted: outcome.hidden.length, skipped: outcome.skipped };
};
