// POST /api/v1/{model-endpoint}: every model endpoint of the spec lands here.
import type { Handler } from './types.ts';
import { httpError, validationError } from '../plugins/errors.ts';
import { urlProblem } from '../workers/webhooks/destination.ts';
import { computePrice } from '../spec/pricing.ts';
import { adapterRegistry, isAdapterConfigured } from '../workers/adapters/index.ts';
import { insertSandboxPrediction, newPredictionId, submitPrediction } from '../db/predictions.ts';
import { InsufficientCreditError } from '../db/errors.ts';
import { requireCaller } from './guards.ts';

export const generate: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const model = ctx.model!;
  const { app } = ctx;
  const now = app.clock();
  const id = newPredictionId(now);
  const webhook = typeof ctx.query.webhook === 'string' ? ctx.query.webhook : null;
  if (webhook !== null) {
    const problem = urlProblem(webhook, { allowInsecure: app.config.webhookAllowInsecure });
    if (problem) throw validationError([{ loc: ['query', 'webhook'], msg: problem, type: 'value_error' }]);
  }
  const base = { id, userId: caller.userId, apiKeyId: caller.apiKeyId, model: model.operationId, input: ctx.body, webhookUrl: webhook };

  if (caller.isTest) {
    const deliveryId = await insertSandboxPrediction(app.db, base, [app.storage.sandboxKey(model.output)], now);
    if (deliveryId) await app.dispatcher.dispatchWebhook(deliveryId);
    return { request_id: id };
  }

  const adapter = adapterRegistry[model.adapter]!;
  const ref = { operationId: model.operationId, category: model.category, ...(model.upstream ? { upstream: model.upstream } : {}) };
  if (!isAdapterConfigured(adapter, ref, app.adapterEnv)) {
    const env = `UPSTREAM_${(model.upstream ?? '').toUpperCase()}_URL`;
    throw httpError(503, `${model.operationId} is not available on this gateway: its upstream provider "${model.upstream}" is not configured (operator: set ${env}); sandbox keys still work`);
  }

  const price = computePrice(model.price, ctx.body);
  try {
    await submitPrediction(app.db, { ...base, price }, now);
  } catch (err) {
    if (err instanceof InsufficientCreditError) {
      throw httpError(402, `insufficient credit: this request costs ${price} credits; see GET /account/balance`);
    }
    throw err;
  }
  // Persisted: from here the request is never lost. If the queue does not confirm now, the
  // sweeper publishes it when the broker is back.
  await app.dispatcher.dispatch(id);
  return { request_id: id };
};
