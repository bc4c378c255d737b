// The body of an alert's webhook event (docs/api/alerts.md): `type` names the event
// (`alert.low_balance`, `alert.monthly_budget`, `alert.key_soft_limit`; `alert.test` for the
// sample the alert settings send on demand), `alert` is the alert as GET /app/alerts lists it, and
// `message` the sentence the alert's email carries.
import type { AlertKind } from '../../db/alerts.ts';
import type { Owner } from '../../lib/caller.ts';

export interface AlertFacts {
  /** null in a test event: no alert was recorded */
  id: number | null;
  kind: AlertKind;
  apiKeyId: number | null;
  period: string;
  threshold: number;
  value: number;
  createdAt: number;
}

/** What crossed which line, in a sentence. */
export function alertSentence(a: AlertFacts, owner: Owner): string {
  const wallet = owner.teamId === null ? 'Your account' : `Your team (id ${owner.teamId})`;
  const what: Record<AlertKind, string> = {
    low_balance: `The balance of ${wallet.toLowerCase()} is ${a.value} credits, below your low-balance alert of ${a.threshold} credits.`,
    monthly_budget: `${wallet} has committed ${a.value} credits this month (${a.period}), reaching its monthly budget of ${a.threshold} credits.`,
    key_soft_limit: `An API key (id ${a.apiKeyId ?? ''}) of ${wallet.toLowerCase()} has spent ${a.value} credits in its period (${a.period}), reaching its soft spend limit of ${a.threshold} credits.`,
  };
  return what[a.kind];
}

export function alertEventPayload(webhookId: string, a: AlertFacts, owner: Owner, opts: { test?: boolean } = {}): Record<string, unknown> {
  return {
    type: opts.test ? 'alert.test' : `alert.${a.kind}`,
    id: webhookId,
    created_at: new Date(a.createdAt).toISOString(),
    team_id: owner.teamId,
    alert: {
      id: a.id, kind: a.kind, api_key_id: a.apiKeyId, period: a.period, threshold: a.threshold, value: a.value,
      created_at: new Date(a.createdAt).toISOString(),
    },
    message: opts.test
      ? `A test alert from the gateway: if its signature verifies with your signing secret, your receiver is ready for alerts. A real one would say: ${alertSentence(a, owner)}`
      : alertSentence(a, owner),
  };
}
