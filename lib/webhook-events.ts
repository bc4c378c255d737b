// A submit's `webhook_events_filter` (docs/api/webhooks.md "Events while it runs"), as Replicate
// takes it: the events a webhook receives. Without it a webhook receives the result only
// (interface spec section 3: `completed` or `failed`). `completed` stands for the result whatever
// it is (`completed` or `failed`), as Replicate's covers every terminal state.

export const WEBHOOK_EVENTS = ['start', 'progress', 'logs', 'completed'] as const;
export type WebhookEvent = typeof WEBHOOK_EVENTS[number];
/** the events sent while the prediction runs (all but the result) */
export type RunningEvent = Exclude<WebhookEvent, 'completed'>;

const isEvent = (s: string): s is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(s);

/**
 * The events named by the query parameter's values: repeated (`?webhook_events_filter=start&webhook_events_filter=completed`),
 * comma-separated (`?webhook_events_filter=start,completed`) or both; spaces around a name and
 * repeats are ignored. A problem is a sentence for the caller (422 on the parameter).
 */
export function parseEventsFilter(values: readonly string[]): { events: WebhookEvent[] } | { problem: string } {
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !isEvent(n));
  if (unknown.length > 0) {
    const listed = [...new Set(unknown)].map((n) => `"${n.slice(0, 40)}"`).join(', ');
    return { problem: `unknown webhook event ${listed}: the events are ${WEBHOOK_EVENTS.join(', ')}` };
  }
  if (names.length === 0) return { problem: `name at least one event: ${WEBHOOK_EVENTS.join(', ')}` };
  // stored and compared in one order, whatever order they came in
  return { events: WEBHOOK_EVENTS.filter((e) => names.includes(e)) };
}

/** The stored column's text back as events (unknown names, which this version never writes, are dropped). */
export function eventsOf(text: string): WebhookEvent[] {
  const names = text.split(',');
  return WEBHOOK_EVENTS.filter((e) => names.includes(e));
}
