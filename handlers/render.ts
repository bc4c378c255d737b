// The public shape of a prediction: the result route's body, and (for issue 3) the webhook
// payload of interface spec 2.2 share these fields.
import type { App } from '../app.ts';
import type { Prediction, PredictionStatus } from '../db/predictions.ts';

export interface PredictionView {
  id: string;
  model: string;
  status: PredictionStatus;
  outputs: string[];
  urls: { get: string };
  has_nsfw_contents: boolean[];
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  /** a stable reason next to `error` (README "Providers"), when known */
  error_code: string | null;
  executionTime: string | null;
  timings: { inference: number | null };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function predictionView(app: App, p: Prediction): PredictionView {
  const completed = p.status === 'completed';
  return {
    id: p.id,
    model: p.model,
    status: p.status,
    outputs: completed ? p.outputs.map((k) => app.storage.url(k)) : [],
    urls: { get: `${app.config.publicUrl}/api/v1/predictions/${p.id}/result` },
    has_nsfw_contents: completed ? p.outputs.map((_, i) => p.nsfw[i] ?? false) : [],
    created_at: new Date(p.createdAt).toISOString(),
    started_at: iso(p.startedAt),
    completed_at: iso(p.completedAt),
    error: p.status === 'failed' || p.status === 'cancelled' ? p.error ?? (p.status === 'cancelled' ? 'cancelled by the user' : null) : null,
    error_code: p.status === 'failed' ? p.errorCode : null,
    // wall time from acceptance to the end, in seconds with millisecond precision
    executionTime: p.completedAt === null ? null : `${((p.completedAt - p.createdAt) / 1000).toFixed(3)}s`,
    timings: { inference: p.inferenceMs },
  };
}
