// The public shape of a prediction: the result route's body (handlers) and the webhook payload
// of interface spec 2.2 (workers/deliver-webhook.ts) share these fields. Then the provider
// metadata such a view may carry, and how it is checked before it is kept or shown.
import type { components } from '../spec/v1.generated.ts';
import type { Storage } from './storage.ts';

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

// ---- the provider metadata ----
// Provider metadata of a completed result (ProviderMetadata in the spec): what a provider's answer
// said besides the outputs, checked before it is kept or shown. The adapters read it from each
// provider's answer; db/provider-costs.ts keeps it with the run's cost; the result route and the
// webhook show it as `provider_metadata`. A value of the wrong type or out of range is dropped,
// never shown: it comes from a third party.

export type ProviderMetadata = components['schemas']['ProviderMetadata'];

const MAX_PROMPT = 8000;
const MAX_TIMINGS = 16;
const TIMING_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The fields of `raw` that are well formed, or undefined when none is. */
export function cleanMetadata(raw: unknown): ProviderMetadata | undefined {
  if (!isRecord(raw)) return undefined;
  const out: ProviderMetadata = {};
  if (Number.isSafeInteger(raw.seed) && (raw.seed as number) >= 0) out.seed = raw.seed as number;
  for (const k of ['width', 'height'] as const) if (Number.isSafeInteger(raw[k]) && (raw[k] as number) >= 1) out[k] = raw[k] as number;
  if (finite(raw.duration) && raw.duration >= 0) out.duration = Math.round(raw.duration * 1000) / 1000;
  if (typeof raw.revised_prompt === 'string' && raw.revised_prompt !== '') out.revised_prompt = raw.revised_prompt.slice(0, MAX_PROMPT);
  if (isRecord(raw.provider_timings)) {
    const timings: Record<string, number> = {};
    for (const [name, ms] of Object.entries(raw.provider_timings).slice(0, MAX_TIMINGS)) {
      if (TIMING_NAME.test(name) && finite(ms) && ms >= 0) timings[name] = Math.round(ms);
    }
    if (Object.keys(timings).length) out.provider_timings = timings;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Timings a provider gives in seconds ({inference: 1.4}), in milliseconds. */
export function secondsToMs(raw: unknown): Record<string, number> | undefined {
  if (!isRecord(raw)) return undefined;
  const out: Record<string, number> = {};
  for (const [name, s] of Object.entries(raw)) if (finite(s) && s >= 0) out[name] = Math.round(s * 1000);
  return Object.keys(out).length ? out : undefined;
}
