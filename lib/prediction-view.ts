// The public shape of a prediction: the result route's body (handlers) and the webhook payload
// of interface spec 2.2 (workers/deliver-webhook.ts) share these fields.
import type { components } from '../spec/v1.generated.ts';
import type { Storage } from './storage.ts';
import type { ProviderMetadata } from './provider-metadata.ts';

type PredictionStatus = components['schemas']['PredictionStatus'];

/** What the view reads of a prediction (db/predictions/record.ts `Prediction` has it all). */
export interface ViewedPrediction {
  id: string;
  model: string;
  status: PredictionStatus;
  outputs: string[];
  nsfw: boolean[];
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  error: string | null;
  errorCode?: string | null;
  inferenceMs: number | null;
  /** when the retention job removed the output files; null (or absent) while they are kept */
  outputsExpiredAt?: number | null;
}

/** What the view needs of the app (an App has it): output URLs and the public base URL. */
export interface ViewContext {
  storage: Pick<Storage, 'url'>;
  config: { publicUrl: string };
}

export interface PredictionView {
  id: string;
  model: string;
  status: PredictionStatus;
  outputs: string[];
  /** the files were removed by retention (README "Retention"): outputs and has_nsfw_contents are then [] */
  outputs_expired: boolean;
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
  /** what the provider said of a completed result (db/provider-costs.ts providerMetadataOf), when it said anything */
  provider_metadata?: ProviderMetadata;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function predictionView(app: ViewContext, p: ViewedPrediction): PredictionView {
  const expired = p.status === 'completed' && (p.outputsExpiredAt ?? null) !== null;
  // URLs whose files are gone would only 404: an expired prediction lists none and says why.
  const completed = p.status === 'completed' && !expired;
  return {
    id: p.id,
    model: p.model,
    status: p.status,
    outputs: completed ? p.outputs.map((k) => app.storage.url(k)) : [],
    outputs_expired: expired,
    urls: { get: `${app.config.publicUrl}/api/v1/predictions/${p.id}/result` },
    has_nsfw_contents: completed ? p.outputs.map((_, i) => p.nsfw[i] ?? false) : [],
    created_at: new Date(p.createdAt).toISOString(),
    started_at: iso(p.startedAt),
    completed_at: iso(p.completedAt),
    error: p.status === 'failed' || p.status === 'cancelled' ? p.error ?? (p.status === 'cancelled' ? 'cancelled by the user' : null) : null,
    error_code: p.status === 'failed' ? p.errorCode ?? null : null,
    // wall time from acceptance to the end, in seconds with millisecond precision
    executionTime: p.completedAt === null ? null : `${((p.completedAt - p.createdAt) / 1000).toFixed(3)}s`,
    timings: { inference: p.inferenceMs },
  };
}
