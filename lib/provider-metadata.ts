// Provider metadata of a completed result (ProviderMetadata in the spec): what a provider's answer
// said besides the outputs, checked before it is kept or shown. The adapters read it from each
// provider's answer; db/provider-costs.ts keeps it with the run's cost; the result route and the
// webhook show it as `provider_metadata`. A value of the wrong type or out of range is dropped,
// never shown: it comes from a third party.
import type { components } from '../spec/v1.generated.ts';

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
