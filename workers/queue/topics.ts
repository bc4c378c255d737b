// Shared by both transports: what a valid topic is, and which delay queue a retry waits in.
import type { TopicSpec } from './types.ts';

const TOPIC_NAME = /^[A-Za-z0-9_-]+$/;

/** The delay queue a retry waits in: the smallest delay >= the one asked for, else the largest. */
export function pickRetryDelay(delays: readonly number[], wantedMs: number): number | undefined {
  const sorted = [...delays].sort((a, b) => a - b);
  return sorted.find((d) => d >= wantedMs) ?? sorted.at(-1);
}

/**
 * The body a retry or dead-letter copy of a message carries: without the topic's
 * `firstDeliveryOnly` fields. The JSON text itself when there is nothing to leave out (the common
 * case: no re-serialising); else the copy's JSON.
 */
export function laterCopy(spec: TopicSpec, json: string, body: unknown): string {
  const fields = spec.firstDeliveryOnly;
  if (!fields?.length || typeof body !== 'object' || body === null || Array.isArray(body)) return json;
  const record = body as Record<string, unknown>;
  if (!fields.some((f) => Object.hasOwn(record, f))) return json;
  const copy = { ...record };
  for (const f of fields) delete copy[f];
  return JSON.stringify(copy);
}

export function validateTopic(spec: TopicSpec): void {
  if (!TOPIC_NAME.test(spec.name)) {
    // A dot would make `P.a.retry.5` ambiguous between topic `a` and topic `a.retry.5`.
    throw new Error(`topic name ${JSON.stringify(spec.name)} must match ${TOPIC_NAME}`);
  }
  for (const d of spec.retryDelaysMs) {
    if (!Number.isSafeInteger(d) || d <= 0) {
      throw new Error(`topic ${spec.name}: retry delays must be positive integers of milliseconds, got ${d}`);
    }
  }
  if (!Number.isSafeInteger(spec.maxRetries) || spec.maxRetries < 0) {
    throw new Error(`topic ${spec.name}: maxRetries must be a non-negative integer, got ${spec.maxRetries}`);
  }
}
