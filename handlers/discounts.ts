// Model discounts (README "Discounts"): the billing routes that set, list and delete them, and
// myModelDiscounts for the paying wallet. Which discount applies to a price, and the price after
// it, is the one price function (handlers/admission.ts priceFor, spec/pricing.ts chooseDiscount and
// applyDiscount), used by the quote and the submit's hold alike.
import type { Handler } from './types.ts';
import type { AuditFields } from './audit.ts';
import type { App } from '../lib/context.ts';
import { NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import { findLiveUserByEmail, findUserByEmail } from '../db/users.ts';
import { membership } from '../db/teams.ts';
import { pseudonymiseText } from '../db/pseudonymise.ts';
import { activeDiscounts, deleteDiscount, listDiscounts, teamExists, upsertDiscounts } from '../db/discounts.ts';
import type { ModelDiscount, NewDiscount } from '../db/discounts.ts';
import type { components } from '../spec/v1.generated.ts';

type View = components['schemas']['ModelDiscount'];

/** The list of every wallet's discounts is read this many at a time (listModelDiscounts' `before`). */
export const DISCOUNT_PAGE_SIZE = 100;

const iso = (ms: number) => new Date(ms).toISOString();

export function discountView(d: ModelDiscount): View {
  return {
    id: d.id, email: d.email, team_id: d.teamId, model: d.model, percent_off: d.percentOff, expires_at: d.expiresAt === null ? null : iso(d.expiresAt),
    reason: d.reason, created_at: iso(d.createdAt), updated_at: iso(d.updatedAt),
  };
}

async function knownTeam(app: App, teamId: number, audit: AuditFields): Promise<void> {
  audit.target_team_id = teamId;
  if (!Number.isSafeInteger(teamId) || !await teamExists(app.db, teamId)) throw new NotFoundError('team not found');
}

/** GET /auth/admin_model_discounts[?email=|?team_id=] */
export const listModelDiscounts: Handler<'listModelDiscounts'> = async ({ app, query, audit }) => {
  if (query.team_id !== undefined) {
    await knownTeam(app, query.team_id, audit);
    return (await listDiscounts(app.db, { owner: { userId: 0, teamId: query.team_id } })).map(discountView);
  }
  if (query.email !== undefined) {
    const user = await findUserByEmail(app.db, query.email);
    if (!user) throw new NotFoundError('no account with this email');
    audit.target_user_id = user.id;
    return (await listDiscounts(app.db, { owner: { userId: user.id, teamId: null } })).map(discountView);
  }
  // every wallet's: a page at a time (one wallet's list is bounded by the catalog, one per model and *)
  return (await listDiscounts(app.db, { limit: DISCOUNT_PAGE_SIZE, ...(query.before === undefined ? {} : { before: query.before }) })).map(discountView);
};

/** POST /auth/admin_model_discounts[?team_id=]: all the items are checked before any is stored. */
export const upsertModelDiscounts: Handler<'upsertModelDiscounts'> = async ({ app, caller, query, body, audit }) => {
  const now = app.clock();
  const problems: ValidationItem[] = [];
  const expiries = body.discounts.map((d, i) => {
    if (d.model !== '*' && !app.spec.models.has(d.model)) {
      problems.push({ loc: ['body', 'discounts', i, 'model'], msg: `no model ${d.model} on this gateway (GET /api/v1/models lists them; * is every model)`, type: 'value_error' });
    }
    if (d.expires_at === undefined || d.expires_at === null) return null;
    const at = Date.parse(d.expires_at);
    if (!(at > now)) problems.push({ loc: ['body', 'discounts', i, 'expires_at'], msg: 'expires_at must be in the future', type: 'value_error' });
    return at;
  });
  if (problems.length) throw new ValidationFailedError(problems);
  const teamId = query.team_id ?? null;
  if (teamId !== null) await knownTeam(app, teamId, audit);
  const typed = body.reason?.trim() || null;
  // a discount outlives the erasure of a person its reason names (a team's, or another account's): staff's text in it is
  // written as the audit row's is, each address as the account it names (db/pseudonymise.ts), cut to the column (255, the
  // body's limit), as those words may be longer than the addresses
  const reason = typed !== null ? (await pseudonymiseText(app.db, typed)).slice(0, 255) : typed;
  const items: NewDiscount[] = [];
  for (const [i, d] of body.discounts.entries()) {
    const user = await findLiveUserByEmail(app.db, d.email);
    if (!user) throw new NotFoundError(`no account with the email of discounts[${i}]`);
    audit.target_user_id ??= user.id;
    if (teamId !== null && await membership(app.db, teamId, user.id) === undefined) throw new NotFoundError(`the user of discounts[${i}] is not a member of this team`);
    items.push({ owner: { userId: user.id, teamId }, model: d.model, percentOff: d.percent_off, expiresAt: expiries[i]!, reason, createdBy: caller.userId });
  }
  const stored = await upsertDiscounts(app.db, items, now);
  // the wallet's discount marker is read with its API keys: no process may price from a cached 0 after this answer
  await app.credentials.invalidate({ userIds: [...new Set(items.map((d) => d.owner.userId))] });
  return stored.map(discountView);
};

/** DELETE /auth/admin_model_discounts/{discount_id} */
export const deleteModelDiscount: Handler<'deleteModelDiscount'> = async ({ app, params, audit }) => {
  const id = params.discount_id;
  if (!Number.isSafeInteger(id)) throw new NotFoundError('discount not found');
  const gone = await deleteDiscount(app.db, id);
  if (!gone) throw new NotFoundError('discount not found');
  await app.credentials.invalidate({ userIds: [gone.userId] });
  audit.target_user_id = gone.userId;
  if (gone.teamId !== null) audit.target_team_id = gone.teamId;
  return { id, deleted: true };
};

/** GET /auth/my_model_discounts[?team_id=]: the paying wallet's discounts that have not expired. */
export const myModelDiscounts: Handler<'myModelDiscounts'> = async ({ app, caller }) =>
  (await activeDiscounts(app.db, caller.owner, app.clock())).map(discountView);
