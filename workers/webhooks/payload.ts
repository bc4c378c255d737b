// The webhook body of interface spec 2.2, exactly those fields: `outputs` only when completed,
// `error` only when failed.
import type { App } from '../../lib/context.ts';
import type { Prediction } from '../../db/predictions/record.ts';
import { predictionView } from '../../lib/prediction-view.ts';
import { parseRunLogs } from '../../lib/run-logs.ts';
import type { RunningEvent } from '../../lib/webhook-events.ts';

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

/**
 * The body of an event sent while the prediction runs (docs/api/webhooks.md "Events while it
 * runs"): the result's fields as they are now (`status` queued or processing), which event it is,
 * and what the provider says of the run: `progress` (0..1) and `queue_position`, null when not
 * known, and for a `logs` event the log lines so far (as the result route's `?logs=true`).
 */
export function runningEventPayload(app: App, p: Prediction, event: RunningEvent): Record<string, unknown> {
  const lines = event === 'logs' ? parseRunLogs(p.logsText)?.lines ?? [] : [];
  return {
    ...webhookPayload(app, p),
    event,
    progress: p.progress,
    queue_position: p.queuePosition,
    ...(event === 'logs' ? { logs: lines.map((l) => ({ at: new Date(l.at).toISOString(), message: l.message })) } : {}),
  };
}
