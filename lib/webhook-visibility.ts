// Who sees a webhook URL whole (docs/api/webhooks.md#who-sees-a-webhook-url). A receiver often
// takes its own secret in the URL (`?token=`, a signature, once a user name and password), so a
// URL is shown whole only to a caller who could have set it; anyone else who may read it gets it
// redacted: no user name, password or fragment, every query value `redacted`, the scheme, host,
// port, path and query keys kept (enough to tell which receiver it is).
//
// Who could have set it, and with which credential:
// - a prediction's `webhook` (and its deliveries' `url`): the user who submitted the prediction,
//   or a member of its team with `manage_keys` (owner, admin, developer, and the team's keys: the
//   permission that already reveals the team's webhook signing secret), through a credential with
//   `generate:write` (a model submit's scope);
// - the alert webhook URL (alert settings, alert deliveries): a member with `top_up` (owner, admin,
//   billing: updateAlertSettings' permission), through a credential with `keys:manage` (its scope).
// On a personal account only the scope counts: the account's user is the only member.
// An impersonated session (a staff member acting as the user) sees every URL redacted: a receiver's
// token outlives the session, like the credentials and secrets it may not read (README
// "Impersonation and support links").
import type { Owner, TeamPermission } from './caller.ts';
import type { Scope } from '../spec/scopes.ts';

export const REDACTED = 'redacted';

/** The URL without user name, password or fragment, each query value `redacted`; an unparsable one is `redacted` whole. */
export function redactWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  url.username = '';
  url.password = '';
  url.hash = '';
  const keys = [...url.searchParams.keys()];
  url.search = new URLSearchParams(keys.map((k): [string, string] => [k, REDACTED])).toString();
  return url.toString();
}

/** What a reader's credential and team access say about the URLs it is shown. */
export interface WebhookReader {
  userId: number;
  scopes: readonly Scope[];
  owner: Owner;
  /** the reader's permissions in owner's team (absent or null: its own account; absent with a team owner: none) */
  teamPermissions?: readonly TeamPermission[] | null;
  /** set on an impersonated session (Caller.impersonator): every URL is redacted */
  impersonator?: { userId: number } | undefined;
}

/** The URLs as `reader` is shown them. */
export interface WebhookUrlView {
  /** a prediction's webhook URL, the prediction submitted by user `submittedBy` */
  prediction(url: string, submittedBy: number): string;
  /** the alert webhook URL of the owner's wallet */
  alert(url: string): string;
}

function mayInTeam(reader: WebhookReader, permission: TeamPermission): boolean {
  if (reader.owner.teamId === null) return true;
  return reader.teamPermissions?.includes(permission) ?? false;
}

export function webhookUrlView(reader: WebhookReader): WebhookUrlView {
  const acting = reader.impersonator !== undefined;
  const submits = !acting && reader.scopes.includes('generate:write');
  const managesKeys = submits && mayInTeam(reader, 'manage_keys');
  const setsAlerts = !acting && reader.scopes.includes('keys:manage') && mayInTeam(reader, 'top_up');
  return {
    prediction: (url, submittedBy) => (managesKeys || (submits && submittedBy === reader.userId) ? url : redactWebhookUrl(url)),
    alert: (url) => (setsAlerts ? url : redactWebhookUrl(url)),
  };
}
