// The webhook body of interface spec 2.2, exactly those fields: `outputs` only when completed,
// `error` only when failed.
import type { App } from '../../lib/context.ts';
import type { Prediction } from '../../db/predictions/record.ts';
import { predictionView } from '../../lib/prediction-view.ts';

export function webhookPayload(app: App, p: Prediction): Record<string, unknown> {
  const v = predictionView(app, p);
  return {
    id: v.id,
    ...(p.status === 'completed' ? { outputs: v.outputs } : {}),
    urls: { get: v.urls.get },
    has_nsfw_contents: v.has_nsfw_contents,
    status: v.status,
    created_at: v.created_at,
    ...(p.status === 'failed' ? { error: v.error ?? 'the prediction failed' } : {}),
    executionTime: v.executionTime,
    timings: { inference: v.timings.inference },
  };
}
