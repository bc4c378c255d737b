// Deleting an account (README "Deleting an account"): a request schedules it after a grace
// period; the retention job erases accounts past due. Erasing removes what the person gave us
// (profile, credentials, personal predictions and their files, memberships) and keeps an
// anonymised tombstone row, so the ledger rows, never deleted, still sum to a wallet.
import { dropCounter } from './history-count.ts';
import { ownerKey } from '../lib/caller.ts';
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, jsonOr, num } from './knex.ts';
import { releaseFor } from './wallet/moves.ts';
import { endRetiredSecretsHeldBy, revokeInvitesSentBy, revokeTeamKeysCreatedBy } from './teams.ts';
import type { RevokedTeamKey } from './teams.ts';
import { payerOfRow } from './predictions/record.ts';
import { recordWalletStripeCancellations } from './stripe-cancellations.ts';
import { FINISHED_UPSTREAM, recordUpstreamCancellation } from './upstream-cancellations.ts';
import type { PredictionRow } from './predictions/record.ts';

export interface DeletionState {
  requestedAt: number | null;
  dueAt: number | null;
}

/** Live teams in which the user is the only owner: deleting the account would orphan them. */
export async function soleOwnedTeams(db: Db | Knex.Transaction, userId: number): Promise<Array<{ id: number; name: string }>> {
  const rows = await db('team_members as mine')
    .join('teams', 'teams.id', 'mine.team_id')
    .where({ 'mine.user_id': userId, 'mine.role': 'owner' })
    .whereNull('teams.deleted_at')
    .whereNotExists(function otherOwner() {
      this.select(db.raw('1')).from('team_members as other')
        .whereRaw('other.team_id = mine.team_id').andWhere('other.role', 'owner').andWhereRaw('other.user_id <> mine.user_id');
    })
    .select<Array<{ id: number | string; name: string }>>('teams.id', 'teams.name')
    .orderBy('teams.id');
  return rows.map((r) => ({ id: num(r.id), name: r.name }));
}

export async function deletionState(db: Db, userId: number): Promise<DeletionState> {
  const row = await db('users').where({ id: userId }).first<{ deletion_requested_at: number | string | null; deletion_due_at: number | string | null } | undefined>('deletion_requested_at', 'deletion_due_at');
  return {
    requestedAt: row?.deletion_requested_at == null ? null : num(row.deletion_requested_at),
    dueAt: row?.deletion_due_at == null ? null : num(row.deletion_due_at),
  };
}

export type ScheduleResult =
  | { kind: 'scheduled'; dueAt: number }
  | { kind: 'already'; dueAt: number }
  | { kind: 'sole-owner'; teams: Array<{ id: number; name: string }> };

/**
 * Schedules the deletion, unless one is already scheduled or the user is the last owner of a
 * team; the check and the write are one transaction under the user's row lock.
 */
export async function scheduleDeletion(db: Db, userId: number, now: number, graceMs: number): Promise<ScheduleResult> {
  return db.transaction(async (trx) => {
    const row = await trx('users').where({ id: userId }).forUpdate().first<{ deletion_due_at: number | string | null }>('deletion_due_at');
    if (row?.deletion_due_at != null) return { kind: 'already', dueAt: num(row.deletion_due_at) };
    const teams = await soleOwnedTeams(trx, userId);
    if (teams.length) return { kind: 'sole-owner', teams };
    const dueAt = now + graceMs;
    await trx('users').where({ id: userId }).update({ deletion_requested_at: now, deletion_due_at: dueAt });
    return { kind: 'scheduled', dueAt };
  });
}

/** Cancels a scheduled deletion; false when none was scheduled. */
export async function cancelDeletion(db: Db, userId: number): Promise<boolean> {
  return affected(await db('users').where({ id: userId }).whereNotNull('deletion_due_at').whereNull('deleted_at')
    .update({ deletion_requested_at: null, deletion_due_at: null })) === 1;
}

/** Accounts whose grace period is over, oldest first. */
export async function accountsDueForDeletion(db: Db, now: number, limit: number): Promise<number[]> {
  const rows = await db('users').select('id').whereNotNull('deletion_due_at').andWhere('deletion_due_at', '<=', now).whereNull('deleted_at')
    .orderBy('deletion_due_at', 'asc').limit(limit);
  return rows.map((r: { id: number | string }) => num(r.id));
}

/** The stored files of the user's personal uploads (the media library's included), to remove before the rows go. */
export async function personalUploadKeys(db: Db | Knex.Transaction, userId: number, lock = false): Promise<string[]> {
  const q = db('uploads').where({ user_id: userId }).whereNull('team_id');
  if (lock) q.forUpdate();
  const rows = await q.select<Array<{ storage_key: string }>>('storage_key');
  return rows.map((r) => r.storage_key);
}

/** The stored output files of the user's personal predictions, to remove before the rows go. */
export async function personalOutputs(db: Db | Knex.Transaction, userId: number, lock = false): Promise<Array<{ id: string; outputs: string[] }>> {
  const q = db('predictions').select('id', 'outputs').where({ user_id: userId }).whereNull('team_id').andWhere('is_test', false)
    .whereNull('outputs_expired_at');
  if (lock) q.forUpdate();
  const rows = await q;
  return rows.map((r: { id: string; outputs: string | null }) => ({ id: r.id, outputs: jsonOr<string[]>(r.outputs, []) }));
}

/**
 * A job a provider accepted for one of the erased account's personal predictions that was still
 * running, or cancelled by its owner before the next poll told the provider, its last status not
 * a finished one: the erasing transaction records it in `upstream_cancellations`, and the caller
 * tries the cancel at the provider once the rows are gone (workers/retention.ts
 * eraseAccountAndFiles; the subscription job tries again until done).
 */
export interface AbandonedUpstreamJob {
  predictionId: string;
  model: string;
  /** the provider that took it (predictions.upstream_name) */
  provider: string;
  jobId: string;
  /** the provider's last status word, null when unknown */
  status: string | null;
}

/**
 * The stored files of the rows the erasing transaction removed, as it read them under its locks:
 * the caller removed the files it listed before, and removes any that arrived in between (a run
 * completing, an upload) after the commit, or they would stay with no row naming them.
 */
export interface ErasedFiles {
  outputs: Array<{ id: string; outputs: string[] }>;
  uploads: string[];
}

export type EraseResult = { kind: 'erased'; upstreamJobs: AbandonedUpstreamJob[]; files: ErasedFiles; revokedTeamKeys: RevokedTeamKey[]; endedTeamKeySecrets: RevokedTeamKey[]; stripeCancellations: string[] } | { kind: 'sole-owner'; teams: Array<{ id: number; name: string }> } | { kind: 'not-due' } | { kind: 'last-admin' };

export interface EraseOptions {
  /**
   * adminDeleteUser: erase now, whether or not a deletion was requested (no grace period); only an
   * account already erased is `not-due`.
   */
  immediate?: boolean;
}

/**
 * Whether the account is the last live administrator. Every live admin row is locked first, so two
 * concurrent erasures of the last two administrators serialise and the second sees one left.
 */
async function isLastAdmin(trx: Knex.Transaction, userId: number): Promise<boolean> {
  const admins = await trx('users').where({ role: 'admin' }).whereNull('deleted_at').forUpdate().select<Array<{ id: number | string }>>('id');
  return admins.length <= 1 && admins.some((a) => num(a.id) === userId);
}

/**
 * Erases the account's personal data in one transaction, re-checking under the row lock that it
 * is still due (a cancel may have won; `immediate` skips this, for adminDeleteUser), is not the
 * last administrator, and still owns no team alone (ownership may not have moved: then it waits
 * for the next run). Kept: the anonymised users row and every ledger row; the
 * team's records the person made for a team (its predictions, and its keys, revoked as a removal
 * from the team revokes them).
 * Output files are removed by the caller first (personalOutputs), so a failure there leaves the
 * rows to try again.
 */
export async function eraseAccount(db: Db, userId: number, now: number, opts: EraseOptions = {}): Promise<EraseResult> {
  return db.transaction(async (trx) => {
    const row = await trx('users').where({ id: userId }).forUpdate()
      .first<{ email: string; role: string; deletion_due_at: number | string | null; deleted_at: number | string | null } | undefined>('email', 'role', 'deletion_due_at', 'deleted_at');
    if (!row || row.deleted_at != null) return { kind: 'not-due' };
    if (!opts.immediate && (row.deletion_due_at == null || num(row.deletion_due_at) > now)) return { kind: 'not-due' };
    // the gateway always keeps one administrator (as `npm run admin -- revoke` does)
    if (row.role === 'admin' && await isLastAdmin(trx, userId)) return { kind: 'last-admin' };
    const teams = await soleOwnedTeams(trx, userId);
    if (teams.length) return { kind: 'sole-owner', teams };

    const clients = await trx('oauth_clients').where({ user_id: userId }).select<Array<{ client_id: string }>>('client_id');
    if (clients.length) await trx('oauth_provider_records').whereIn('client_id', clients.map((c) => c.client_id)).delete();
    await trx('oauth_clients').where({ user_id: userId }).delete();
    // personal keys go; the team keys this person created are revoked, as a removal from the team
    // revokes them (the person holds their secrets); their rows stay with the team
    await trx('api_keys').where({ user_id: userId }).whereNull('team_id').delete();
    const revokedTeamKeys = await revokeTeamKeysCreatedBy(trx, userId, null, now);
    // and the replaced secrets of team keys they held before a rotation, still in their grace period
    const endedTeamKeySecrets = await endRetiredSecretsHeldBy(trx, userId, null, now);
    await trx('sessions').where({ user_id: userId }).delete();
    // a Google sign-in handed off to a studio's domain and not yet taken would open a session
    await trx('session_handoffs').where({ user_id: userId }).delete();
    // sessions this person opened as staff acting as someone else, and support links for or by them
    await trx('sessions').where({ impersonator_id: userId }).delete();
    await trx('support_links').where({ user_id: userId }).orWhere({ created_by: userId }).delete();
    await trx('otp_codes').where({ user_id: userId }).delete();
    await trx('user_identities').where({ user_id: userId }).delete();
    await trx('webhook_secrets').where({ user_id: userId }).delete();
    await trx('idempotency_keys').where({ user_id: userId }).delete();
    await trx('team_members').where({ user_id: userId }).delete();
    await trx('team_invites').where({ email: row.email.toLowerCase() }).delete();
    // the invites it sent: a token in someone's mailbox would otherwise still join them to the team
    await revokeInvitesSentBy(trx, userId, now);
    // the personal media library and uploads (their files were removed first); personal embed codes and LoRAs
    await trx('media_assets').where({ user_id: userId }).whereNull('team_id').delete();
    await trx('uploads').where({ user_id: userId }).whereNull('team_id').delete();
    await trx('embed_codes').where({ user_id: userId }).whereNull('team_id').delete();
    // personal LoRAs (names, descriptions, the URLs of weights trained on what the person gave); a team's stay with it
    await trx('loras').where({ user_id: userId }).whereNull('team_id').delete();
    // personal model discounts; a personal subscription ends (its granted credit stays on the
    // anonymised wallet's ledger); personal whitelabel studios are disabled and free their domains
    // (their end users' own accounts stay theirs)
    await trx('model_discounts').where({ user_id: userId }).whereNull('team_id').delete();
    await trx('subscriptions').where({ wallet: ownerKey({ userId, teamId: null }) }).whereIn('status', ['active', 'held']).update({ status: 'cancelled', cancelled_at: now, next_plan: null, updated_at: now });
    // and each Stripe subscription of the wallet is recorded for cancelling at Stripe (workers/stripe-cancellations.ts)
    const stripeCancellations = await recordWalletStripeCancellations(trx, { userId, teamId: null }, now);
    const studios = await trx('studios').where({ user_id: userId }).whereNull('team_id').select<Array<{ id: number | string }>>('id');
    if (studios.length) {
      const ids = studios.map((r) => num(r.id));
      await trx('studio_domains').whereIn('studio_id', ids).delete();
      await trx('studio_domain_claims').whereIn('studio_id', ids).delete();
      await trx('studios').whereIn('id', ids).whereNull('disabled_at').update({ disabled_at: now, updated_at: now });
    }
    // the webhook events asked for by personal predictions still running or never sent a result (their URLs)
    await trx('webhook_event_filters').whereIn('prediction_id', trx('predictions').select('id').where({ user_id: userId }).whereNull('team_id')).delete();
    // personal predictions still unfinished give their holds back first, each to the wallet that
    // placed it (a studio's owner_pays run: the studio owner's), or the credit would stay held
    // for a prediction that no longer exists; the guarded transition keeps a completion racing
    // this erasure from charging what is released
    const upstreamJobs = await lockUpstreamJobs(trx, userId);
    // their rows go, so no poll will tell the providers: each job is recorded, without the person,
    // for cancelling at its provider after the commit and until the provider has stopped it
    for (const j of upstreamJobs) await recordUpstreamCancellation(trx, { provider: j.provider, jobId: j.jobId, model: j.model, predictionId: j.predictionId }, now);
    // after lockUpstreamJobs: the unfinished rows are locked, so none completes before they go
    // locking reads: they see a completion committed since this transaction's first plain read, which the deletes below remove too
    const files: ErasedFiles = { outputs: await personalOutputs(trx, userId, true), uploads: await personalUploadKeys(trx, userId, true) };
    await releaseUnfinished(trx, userId, now);
    // personal predictions (deliveries and attempts cascade); ledger rows name them by id only
    await trx('predictions').where({ user_id: userId }).whereNull('team_id').delete();
    // personal alerts' deliveries (and attempts, cascading): their URLs may carry the receiver's token
    await trx('alert_deliveries').where({ user_id: userId }).whereNull('team_id').delete();
    // the personal wallet's and keys' alerts (a team's stay with it); the settings go with the users row's update below
    await trx('alerts').where({ user_id: userId }).whereNull('team_id').delete();
    await dropCounter(trx, { userId, teamId: null });
    const tombstone = `deleted-${userId}@deleted.invalid`;
    await scrubLedgerDescriptions(trx, userId, row.email, tombstone);
    await trx('users').where({ id: userId }).update({
      email: tombstone,
      password_hash: null,
      // the Stripe customer it paid as (the payment records keep theirs: money history)
      stripe_customer_id: null,
      alert_webhook_url: null,
      low_balance_threshold: null,
      monthly_budget: null,
      monthly_budget_hard: false,
      low_balance_epoch: 0,
      email_verified: false,
      role: 'user',
      deletion_requested_at: null,
      deletion_due_at: null,
      deleted_at: now,
    });
    return { kind: 'erased', upstreamJobs, files, revokedTeamKeys, endedTeamKeySecrets, stripeCancellations };
  });
}

/**
 * The ledger rows stay (money history) and name the account by id only, but a description staff
 * wrote (an administrator's top-up or deduction reason, a ticket's text) may name its address:
 * there it becomes the tombstone's. Only the account's own rows (personal, and a team's it was
 * the target of), and of those only the ones with an `@`; the amounts never change.
 */
async function scrubLedgerDescriptions(trx: Knex.Transaction, userId: number, email: string, tombstone: string): Promise<void> {
  const rows = await trx('credit_transactions').where({ user_id: userId }).andWhere('description', 'like', '%@%')
    .select<Array<{ id: number | string; description: string }>>('id', 'description');
  const address = new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  for (const r of rows) {
    const description = r.description.replace(address, tombstone).slice(0, 255);
    if (description !== r.description) await trx('credit_transactions').where({ id: r.id }).update({ description });
  }
}

/**
 * The provider jobs of the account's personal predictions still unfinished or cancelled (the poll
 * that would tell the provider will find no row), but not those whose provider last reported a
 * finished status (nothing to stop), read with their rows locked: a worker recording
 * a job it just submitted waits, then finds the row gone and cancels that job itself.
 */
async function lockUpstreamJobs(trx: Knex.Transaction, userId: number): Promise<AbandonedUpstreamJob[]> {
  // every unfinished row (one may be recording its job right now); of the cancelled, only those whose provider was not told
  const rows = await trx('predictions').where({ user_id: userId }).whereNull('team_id')
    .where((w) => w.whereIn('status', ['queued', 'pending', 'processing'])
      .orWhere((c) => c.where('status', 'cancelled').whereNotNull('upstream_job_id')
        .where((u) => u.whereNull('upstream_status').orWhereNotIn('upstream_status', [...FINISHED_UPSTREAM]))))
    .orderBy('id').forUpdate()
    .select<Array<{ id: string; model: string; upstream_name: string | null; upstream_job_id: string | null; upstream_status: string | null }>>('id', 'model', 'upstream_name', 'upstream_job_id', 'upstream_status');
  return rows.filter((r) => r.upstream_job_id != null && r.upstream_name != null && !FINISHED_UPSTREAM.has((r.upstream_status ?? '').toLowerCase()))
    .map((r) => ({ predictionId: r.id, model: String(r.model), provider: r.upstream_name!, jobId: r.upstream_job_id!, status: r.upstream_status }));
}

/** The account's personal predictions still queued, pending or processing: cancelled, and each one's hold released to the wallet that holds it. */
async function releaseUnfinished(trx: Knex.Transaction, userId: number, now: number): Promise<void> {
  const unfinished = ['queued', 'pending', 'processing'];
  const rows = await trx('predictions').where({ user_id: userId }).whereNull('team_id').whereIn('status', unfinished).andWhere('price', '>', 0)
    .orderBy('id').select<Array<Pick<PredictionRow, 'id' | 'model' | 'price' | 'user_id' | 'team_id' | 'payer_user_id' | 'payer_team_id'>>>('id', 'model', 'price', 'user_id', 'team_id', 'payer_user_id', 'payer_team_id');
  for (const r of rows) {
    const n = await trx('predictions').where('id', r.id).whereIn('status', unfinished).update({ status: 'cancelled', completed_at: now, updated_at: now });
    if (affected(n) !== 1) continue;
    await releaseFor(trx, payerOfRow(r), num(r.price), { predictionId: r.id, model: String(r.model), now });
  }
}
