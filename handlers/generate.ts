// POST /api/v1/{model-endpoint}: every model endpoint of the spec lands here.
import type { ModelHandler } from './types.ts';
import { UnavailableError, ValidationFailedError } from '../lib/errors.ts';
import { urlProblem } from '../workers/webhooks/destination.ts';
import { computePrice } from '../spec/pricing.ts';
import { adapterRegistry, isAdapterConfigured } from '../workers/adapters/index.ts';
import { configureHint } from '../workers/adapters/upstream-config.ts';
import { insertSandboxPrediction, newPredictionId, submitPrediction } from '../db/predictions.ts';

export const generate: ModelHandler = async ({ app, caller, model, body, query }) => {
  const now = app.clock();
  const id = newPredictionId(now);
  const webhook = query.webhook ?? null;
  if (webhook !== null) {
    const problem = urlProblem(webhook, { allowInsecure: app.config.webhookAllowInsecure });
    if (problem) throw new ValidationFailedError([{ loc: ['query', 'webhook'], msg: problem, type: 'value_error' }]);
  }
  const base = { id, userId: caller.owner.userId, apiKeyId: caller.apiKeyId, model: model.operationId, input: body, webhookUrl: webhook };

  if (caller.isTest) {
    const deliveryId = await insertSandboxPrediction(app.db, base, [app.storage.sandboxKey(model.output)], now);
    if (deliveryId) await app.dispatcher.dispatchWebhook(deliveryId);
    return { request_id: id };
  }

  const adapter = adapterRegistry[model.adapter]!;
  const ref = { operationId: model.operationId, category: model.category, ...(model.upstream ? { upstream: model.upstream } : {}) };
  if (!isAdapterConfigured(adapter, ref, app.adapterEnv)) {
    const env = configureHint(model.upstream ?? '');
    throw new UnavailableError(`${model.operationId} is not available on this gateway: its upstream provider "${model.upstream}" is not configured (operator: set ${env}); sandbox keys still work`);
  }

  // The hold fails with InsufficientCreditError (402 insufficient_credit, lib/errors.ts).
  await submitPrediction(app.db, { ...base, price: computePrice(model.price, body) }, now);
  // Persisted: from here the request is never lost. If the queue does not confirm now, the
  // sweeper publishes it when the broker is back.
  await app.dispatcher.dispatch(id);
  return { request_id: id };
};
