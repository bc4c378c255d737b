// Webhook secrets, the full record of a prediction with its deliveries, and redelivery.
import type { Handler } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { activeSecrets, listDeliveries, reopenDelivery, rotateSecret } from '../db/webhooks.ts';
import type { Attempt, Delivery } from '../db/webhooks.ts';
import { findPrediction } from '../db/predictions.ts';
import { predictionView } from './render.ts';
import { canSee, refuseSandboxKey, requireCaller } from './guards.ts';
import { forgetSecrets } from '../workers/webhooks/secret-cache.ts';

function secretView(list: Array<{ secret: string; createdAt: number; expiresAt: number | null }>) {
  const [current, ...previous] = list;
  return {
    secret: current!.secret,
    created_at: new Date(current!.createdAt).toISOString(),
    // still signing deliveries until they expire (24 hours after a rotation)
    previous: previous.map((p) => ({ created_at: new Date(p.createdAt).toISOString(), expires_at: p.expiresAt === null ? null : new Date(p.expiresAt).toISOString() })),
  };
}

/** GET /app/webhook_secret: the account's signing secret (created on first use). */
export const getWebhookSecret: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  return secretView(await activeSecrets(ctx.app.db, caller.userId, ctx.app.encryptionKey, ctx.app.clock()));
};

/** POST /app/webhook_secret/rotate: a new secret; the old one keeps signing for 24 hours. */
export const rotateWebhookSecret: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  refuseSandboxKey(caller, 'rotate the webhook signing secret');
  await rotateSecret(ctx.app.db, caller.userId, ctx.app.encryptionKey, ctx.app.clock());
  forgetSecrets(caller.userId);
  return secretView(await activeSecrets(ctx.app.db, caller.userId, ctx.app.encryptionKey, ctx.app.clock()));
};

function deliveryView(d: Delivery & { attemptLog: Attempt[] }) {
  return {
    id: d.id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt,
    attempt_log: d.attemptLog.map((a) => ({ number: a.number, started_at: a.startedAt, duration_ms: a.durationMs, status_code: a.statusCode, error: a.error })),
  };
}

/** GET /app/prediction_response/{request_id}: the prediction with its input, cost and webhook deliveries. */
export const getPredictionResponse: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const p = await findPrediction(ctx.app.db, { userId: caller.userId, teamId: null }, String(ctx.params.request_id));
  if (!p || !canSee(caller, p)) throw httpError(404, 'prediction not found');
  const view = predictionView(ctx.app, p);
  return {
    ...view,
    request_id: p.id,
    review_status: p.reviewStatus,
    input: p.input,
    cost: p.status === 'completed' ? p.price : 0,
    is_test: p.isTest,
    team_id: null,
    webhook: p.webhookUrl,
    webhook_deliveries: (await listDeliveries(ctx.app.db, p.id)).map(deliveryView),
  };
};

/** POST /app/webhook_deliveries/{id}/redeliver: a dead or gone delivery tries again, same webhook-id. */
export const redeliverWebhook: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const id = String(ctx.params.id);
  // A sandbox key does only sandbox things: a production prediction's delivery is unknown to it.
  const outcome = await reopenDelivery(ctx.app.db, id, caller.userId, ctx.app.clock(), { sandboxOnly: caller.isTest });
  if (outcome === 'not-found') throw httpError(404, 'webhook delivery not found');
  if (outcome === 'busy') throw httpError(409, 'only a dead-lettered or gone delivery can be redelivered');
  await ctx.app.dispatcher.dispatchWebhook(id);
  return ctx.h.response({ id, status: 'pending' }).code(202);
};
