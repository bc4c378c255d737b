// Taking an account back from whoever registered it without proving the address
// (docs/api/credentials.md): what the three paths that do it (login-otp, reset-password, Google
// sign-in) do once their transaction, which called db/credentials.ts takeBackAccount, has
// committed, and how they tell what was taken back.
import type { App } from '../lib/context.ts';
import type { TakenBack } from '../db/credentials.ts';
import { forgetSecrets } from '../workers/deliver-webhook.ts';
import { forgetWalletAlertSettings } from './admission.ts';
import type { AuditFields } from './audit.ts';

/**
 * Committed: this process forgets the webhook secrets and alert settings it cached, and every API
 * process drops the revoked keys before the answer (README "Credential cache"). Embed codes and
 * studios are read on every request: none is cached.
 */
export async function afterTakeBack(app: App, userId: number): Promise<void> {
  const owner = { userId, teamId: null };
  forgetSecrets(app.db, owner);
  forgetWalletAlertSettings(app, owner);
  await app.credentials.invalidate({ userIds: [userId] });
}

/** The audit event's fields: how much of each kind went. */
export function takenBackAudit(t: TakenBack): AuditFields {
  return {
    sessionsEnded: t.sessionsEnded, apiKeysRevoked: t.apiKeys, oauthClientsRevoked: t.oauthClients,
    ...(t.identitiesUnlinked ? { identitiesUnlinked: t.identitiesUnlinked } : {}),
    embedCodesRevoked: t.embedCodes, studiosDisabled: t.studios, invitesRevoked: t.invites, alertWebhookRemoved: t.alertWebhookRemoved,
  };
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The answer's clauses after what every take-back says (password, sessions, keys, clients, webhook secret): each that applies, led by `; `. */
export function takenBackDetail(t: TakenBack): string {
  const parts: string[] = [];
  if (t.identitiesUnlinked) parts.push('Google sign-in set up before the address was verified no longer opens this account');
  if (t.embedCodes) parts.push(`${count(t.embedCodes, 'embed code was', 'embed codes were')} revoked`);
  if (t.studios) parts.push(`${count(t.studios, 'studio was', 'studios were')} disabled (their users can no longer run models)`);
  if (t.invites) parts.push(`${count(t.invites, 'pending team invite was', 'pending team invites were')} revoked`);
  if (t.alertWebhookRemoved) parts.push('the alert webhook URL was removed (the alert thresholds stay)');
  if (t.teams) parts.push(`this account belongs to ${count(t.teams, 'team', 'teams')}, whose own keys, embed codes and studios were not changed: review the teams, their members and what they hold`);
  return parts.map((p) => `; ${p}`).join('');
}
