// What a model call must pass before its hold, and what its submit does after it: the checks
// handlers/generate.ts runs in order (handlers/openai.ts uses the studio check and the price
// too), kept in one place so that a reader following a submit finds them together.
//   studioHides          in a studio's context only its allowed models exist (README "Whitelabel studios")
//   refuseStudioSpender  a team's owner_pays studio: its team's members need `generate` (the team's wallet pays);
//                        a personal one whose owner's deletion is pending refuses its users' runs
//   resolveInputLoras    an input's `loras` checked against the registry (README "LoRAs")
//   refuseUnservable     a value none of the model's providers can take is a 422 now, not a failed run
//   priceFor             THE price function, the quote's (handlers/catalog.ts) and the hold's
//   walletAlertSettings  the paying wallet's alert settings (its hard monthly budget is checked in the hold)
//   alertsAfterSubmit, budgetRefused   the alerts a submit crossed, after its answer's work
//   paysOwnWallet        whether the payer is the caller's own wallet (a refusal names its budget only then)
//   forgetWalletAlertSettings, forgetKeySoftLimit   the settings cache forgets a change made in this process
//   preferredWait        the `Prefer: wait` of the submit answer (README "Following a prediction")
// The per-minute generation limits are counted before the handler, by the route bridge's
// policies (handlers/policies.ts); the alert settings and list routes are handlers/alerts.ts.
import type { App, Caller, StudioContext } from '../lib/context.ts';
import type { Owner } from '../lib/caller.ts';
import { ForbiddenError, StudioRefusedError, ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { applyDiscount, chooseDiscount, computePriceBreakdown, PriceError, studioPrice } from '../spec/pricing.ts';
import type { PriceBreakdown } from '../spec/pricing.ts';
import { acceptingProviders } from '../spec/mapping.ts';
import { discountsForModel } from '../db/discounts.ts';
import { resolveLoraNames } from '../db/loras.ts';
import { configuredProviders } from '../workers/adapters/index.ts';
import { sendInBackground } from '../lib/mail.ts';
import type { Mail } from '../lib/mail.ts';
import { can, isTeamRole, TEAM_ROLES } from '../lib/caller.ts';
import { studioOfUser } from '../db/studios.ts';
import { alertRecipients, alertSettings, crossingRecorded, keySoftLimit, monthKey, monthSpend, rearmLowBalance, recordCrossing } from '../db/alerts.ts';
import type { AlertSettings, Crossing } from '../db/alerts.ts';
import { insertAlertDelivery } from '../db/alert-deliveries.ts';
import { newDeliveryId } from '../db/webhooks.ts';
import { alertSentence } from '../workers/deliver-webhook.ts';
import type { AlertFacts } from '../workers/deliver-webhook.ts';
import { keySpend } from '../db/key-spend.ts';

/** In a studio's context, only its allowed models exist: any other is the same 404 as an unknown slug. */
export function studioHides(studio: StudioContext | undefined, model: string): boolean {
  return studio !== undefined && !studio.allowedModels.includes(model);
}

/**
 * A personal `owner_pays` studio whose owner has scheduled their account's deletion (README
 * "Deleting an account") refuses its users' runs, 403 `studio_owner_deletion_pending`: the owner's
 * personal keys and embed codes are refused for the grace period, and so is spending the owner's
 * wallet through the studio; a cancel restores it. The owner's own session still acts (as outside
 * the studio); `end_user_pays` studios (each user pays) and a team's studios are not concerned.
 *
 * In a team's `owner_pays` studio every run is paid from the team's wallet. Its end users and the
 * team's key (whose permissions include `generate`) run models there as the studio allows; a
 * member of the team acting with their own credential spends the team's wallet as with `team_id`,
 * so needs the team's `generate` permission: 403 naming it, before anything is held or recorded.
 * The whitelabel step (plugins/credentials.ts) already let only these callers into the studio.
 */
export async function refuseStudioSpender(app: App, caller: Caller, studio: StudioContext | undefined): Promise<void> {
  if (!studio || studio.payerMode !== 'owner_pays') return;
  if (studio.teamId === null) {
    if (studio.ownerDeletionPending && caller.userId !== studio.userId) {
      throw new StudioRefusedError(403, 'studio_owner_deletion_pending', `the owner of the studio "${studio.slug}" has scheduled their account's deletion: its runs, which its owner pays for, are refused until the owner cancels the deletion`);
    }
    return;
  }
  if (caller.keyTeamId !== undefined) return;
  const userStudio = caller.studioId !== undefined ? caller.studioId : await studioOfUser(app.db, caller.userId);
  if (userStudio === studio.id) return;
  const membership = await app.teams?.membership(studio.teamId, caller.userId);
  // left the team since the whitelabel step asked
  if (!membership || !isTeamRole(membership.role)) throw new StudioRefusedError(403, 'studio_forbidden', `this credential does not belong to the studio "${studio.slug}" (its users, its owner or its owning team's members)`);
  if (!can(membership.role, 'generate')) {
    throw new ForbiddenError(`your role in the team that owns this studio (${membership.role}) lacks the "generate" permission: the team's wallet pays for runs in the studio "${studio.slug}"`);
  }
}

/** Whether the model's input schema declares `loras` (the models a LoRA may be used with). */
export function declaresLoras(app: App, model: ModelInfo): boolean {
  const op = app.spec.operationById.get(model.operationId);
  const schema = (op?.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.['application/json']?.schema;
  return schema?.properties?.loras !== undefined;
}

/**
 * A submit's `loras` (a model input field, where the family's schema declares it), checked
 * against the registry: each name must be a public LoRA or one of the submitting owner's, trained
 * for the model's family; otherwise 422 naming `loras[i]`. Returns the input with each entry
 * carrying its weights URL for the upstream, or the input unchanged when it has no `loras`.
 * `owner` null: public LoRAs only, for names an embed code's visitor chose (loraOwnerOf).
 */
export async function resolveInputLoras(app: App, owner: Owner | null, model: ModelInfo, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const entries = input.loras;
  if (entries === undefined) return input;
  // a schema that lets unknown fields through would otherwise hand LoRA weights to a model that never said it takes them
  if (!declaresLoras(app, model)) {
    throw new ValidationFailedError([{ loc: ['body', 'loras'], msg: `${model.operationId} takes no LoRAs (its input declares no loras); the models whose descriptions list loras take them`, type: 'value_error' }]);
  }
  if (!Array.isArray(entries) || entries.length === 0) return input;
  const asked = entries as Array<{ name: string; scale?: number }>;
  const found = await resolveLoraNames(app.db, owner, asked.map((e) => e.name));
  const problems: ValidationItem[] = [];
  const resolved = asked.map((e, i) => {
    const lora = found.get(e.name);
    if (!lora && owner === null) {
      // one answer, without the name, whether the code's owner, another account or none has such a LoRA
      problems.push({ loc: ['body', 'loras', i, 'name'], msg: 'no public LoRA has this name: an embed code\'s visitor may name public LoRAs only (GET /app/lora-models-data lists them)', type: 'value_error' });
    } else if (!lora) {
      problems.push({ loc: ['body', 'loras', i, 'name'], msg: `no LoRA named ${e.name} is public or yours (GET /app/lora-models-data, GET /app/loras)`, type: 'value_error' });
    } else if (lora.baseModel !== model.family) {
      problems.push({ loc: ['body', 'loras', i, 'name'], msg: `LoRA ${e.name} is for the ${lora.baseModel} family; ${model.operationId} is ${model.family}`, type: 'value_error' });
    } else if (lora.userId !== null) {
      // an owner's entry stored before POST /app/loras held its URLs to the webhook destination rule
      const problem = urlProblem(lora.weightsUrl, { allowInsecure: app.config.webhookAllowInsecure }, 'weights_url');
      if (problem) problems.push({ loc: ['body', 'loras', i, 'name'], msg: `LoRA ${e.name}: its ${problem}; register it again with weights at a public https URL`, type: 'value_error' });
    }
    return { ...e, weights_url: lora?.weightsUrl ?? '' };
  });
  if (problems.length) throw new ValidationFailedError(problems);
  return { ...input, loras: resolved };
}

/**
 * Refuses (422, before any hold) an input that none of the providers that would run it can take:
 * a value outside a provider's limits, or one its mapping cannot send (a value its value map
 * lacks). Production checks the configured providers; with none configured (a sandbox key, or
 * the quote of a model this gateway cannot run) every declared provider is tried, so the answer
 * is the model's, whatever this gateway configures. Each item names the field under `loc`.
 */
export function refuseUnservable(app: App, model: ModelInfo, input: Readonly<Record<string, unknown>>, loc: readonly string[]): void {
  const configured = configuredProviders(model, app.adapterEnv);
  const { problems } = acceptingProviders(configured.length ? configured : model.providers, input);
  if (problems.length === 0) return;
  throw new ValidationFailedError(problems.map((p) => ({ loc: [...loc, p.field], msg: `${p.msg} (a limit of this model's provider${model.providers.length > 1 ? 's' : ''} on this gateway)`, type: 'provider_limit' })));
}

/** What a production submit of an input to a model holds: the list price, the discount that applies, the price after it. */
export interface Priced {
  breakdown: PriceBreakdown;
  /** the price before the discount: the gateway's list price, or in a studio its studio price (README "Whitelabel studios") */
  listPrice: number;
  /** the one discount applied (README "Discounts"); null: none */
  discountPercent: number | null;
  price: number;
  /** in a studio (end_user_pays): the owner's markup in `price`, credited to the owner on the charge; 0 otherwise */
  studioMarkup: number;
}

/**
 * THE price function: the quote (calculateDynamicCost) and the submit's hold (handlers/generate.ts)
 * both come through here, so a quote equals the charge. The discount is that of the wallet that
 * pays (`owner`: the team for team keys, team embed codes and `team_id`; in an `owner_pays` studio
 * the studio owner's), chosen by spec/pricing.ts chooseDiscount at the app's clock, and applied
 * by applyDiscount to the gateway's list price. A studio's markup (spec/pricing.ts studioPrice)
 * is added after the discount and is the studio owner's whole: a discount is the gateway's to give.
 */
export async function priceFor(
  app: App, owner: Owner, model: ModelInfo, input: Readonly<Record<string, unknown>>, studio?: StudioContext | null, caller?: Pick<Caller, 'userId' | 'keyOwnerDiscounts'>,
): Promise<Priced> {
  const breakdown = priceOf(app, model, input);
  const payer = studio?.payerMode === 'owner_pays' ? { userId: studio.userId, teamId: studio.teamId } : owner;
  // a personal key's owner paying from a wallet with no discount rows (the marker read with the key): no lookup
  const none = caller?.keyOwnerDiscounts === 0 && payer.teamId === null && payer.userId === caller.userId;
  const discount = breakdown.total > 0 && !none ? chooseDiscount(await discountsForModel(app.db, payer, model.operationId), model.operationId, app.clock()) : null;
  const discountPercent = discount?.percentOff ?? null;
  const studioMarkup = studio ? studioPrice(studio, model.operationId, breakdown.total) - breakdown.total : 0;
  const priced = { breakdown, listPrice: breakdown.total + studioMarkup, discountPercent, price: applyDiscount(breakdown.total, discountPercent) + studioMarkup, studioMarkup };
  // a list price so large that the studio's markup takes it past the integers kept exactly
  if (!Number.isSafeInteger(priced.listPrice)) throw unpriceable(app, model, `with the studio's markup the price is ${priced.listPrice}, past ${Number.MAX_SAFE_INTEGER} credits`);
  return priced;
}

/**
 * The model's list price for an input. Start-up refuses a rule whose priced fields are unbounded
 * or may be negative, so a price its rule cannot give as a whole number of credits from 0 to
 * 2^53 - 1 (spec/pricing.ts PriceError) comes from values within bounds set too wide: the caller
 * gets 422 and can ask for less, nothing is held or charged, and the operator a warning naming
 * the model, whose bounds are worth narrowing.
 */
function priceOf(app: App, model: ModelInfo, input: Readonly<Record<string, unknown>>): PriceBreakdown {
  try {
    return computePriceBreakdown(model.price, input);
  } catch (err) {
    if (err instanceof PriceError) throw unpriceable(app, model, err.message);
    throw err;
  }
}

function unpriceable(app: App, model: ModelInfo, why: string): ValidationFailedError {
  app.log.warn({ model: model.operationId, why }, 'price: an input within the model\'s bounds gave a price past what the gateway charges exactly (narrow the bounds of the fields x-model.price reads in its model file)');
  return new ValidationFailedError([{ loc: ['body'], msg: `${model.operationId} cannot be priced for this input: ${why}; ask for less (nothing was held)`, type: 'price_limit' }]);
}

// ---- the paying wallet's alerts: its settings before the hold, the alerts crossed after it ----
// Each alert whose line a submit crossed is recorded once (db/alerts.ts: recordCrossing) and sent
// by email to the wallet's owner (a team's members who may add credit) and, when the wallet has an
// alert webhook URL, as a signed webhook event (a delivery row that the delivery worker attempts
// and retries like a prediction's). A key's soft-limit alert goes the same ways to the key's owner
// (its user, or its team for a team key), who is not always the wallet that paid.

/** How long a process trusts what it read of a wallet's settings or a key's soft limit (another process's change applies within it). */
const SETTINGS_TTL_MS = 5_000;

const walletSubject = (o: Owner) => (o.teamId === null ? `u:${o.userId}` : `t:${o.teamId}`);

interface Cached<T> { at: number; value: T }
const caches = new WeakMap<App, { wallets: Map<string, Cached<AlertSettings | undefined>>; keys: Map<number, Cached<Awaited<ReturnType<typeof keySoftLimit>>>> }>();
function cacheOf(app: App) {
  let c = caches.get(app);
  if (!c) caches.set(app, c = { wallets: new Map(), keys: new Map() });
  return c;
}
async function cached<K, T>(map: Map<K, Cached<T>>, key: K, read: () => Promise<T>): Promise<T> {
  const hit = map.get(key);
  if (hit && Date.now() - hit.at < SETTINGS_TTL_MS) return hit.value;
  const value = await read();
  map.set(key, { at: Date.now(), value });
  return value;
}

/** The paying wallet's settings as this process last read them (at most SETTINGS_TTL_MS old). */
export function walletAlertSettings(app: App, payer: Owner): Promise<AlertSettings | undefined> {
  return cached(cacheOf(app).wallets, walletSubject(payer), () => alertSettings(app.db, payer));
}

/** This process forgets a wallet's alert settings (they were just changed here: PUT /app/alert_settings). */
export function forgetWalletAlertSettings(app: App, owner: Owner): void {
  cacheOf(app).wallets.delete(walletSubject(owner));
}

/** This process forgets a key's soft limit (it was just changed here). */
export function forgetKeySoftLimit(app: App, keyId: number): void {
  cacheOf(app).keys.delete(keyId);
}

const BILLING_ROLES = TEAM_ROLES.filter((r) => can(r, 'top_up'));

const factsOf = (c: Crossing, id: number | null): AlertFacts => ({
  id, kind: c.kind, apiKeyId: c.apiKeyId, period: c.period, threshold: c.threshold, value: c.value, createdAt: c.now,
});

function alertMail(to: string, c: Crossing): Mail {
  return {
    to,
    subject: c.kind === 'low_balance' ? 'mediagate: low balance' : c.kind === 'monthly_budget' ? 'mediagate: monthly budget reached' : 'mediagate: API key spend alert',
    text: `${alertSentence(factsOf(c, null), c.owner)}\n\nYou get this message once each time the line is crossed. Change your alerts on the Usage page of the dashboard.\n`,
  };
}

/**
 * Sends a crossing this process recorded: one mail to each recipient and, when the wallet has an
 * alert webhook URL, a delivery (recorded first: one whose message is lost is published again by
 * the sweeper).
 */
async function sendAlert(app: App, c: Crossing, alertId: number): Promise<void> {
  for (const to of await alertRecipients(app.db, c.owner, BILLING_ROLES)) sendInBackground(app, alertMail(to, c));
  const url = (await alertSettings(app.db, c.owner))?.webhookUrl ?? null;
  if (url !== null) {
    const id = newDeliveryId();
    await insertAlertDelivery(app.db, { id, alertId, owner: c.owner, url }, app.clock());
    await app.dispatcher.dispatchWebhook(id);
  }
  app.log.info({ event: 'alert_sent', kind: c.kind, subject: c.subject, period: c.period, webhook: url !== null }, 'alerts: crossing sent');
}

async function crossed(app: App, c: Crossing): Promise<void> {
  const alertId = await recordCrossing(app.db, c);
  if (alertId !== undefined) await sendAlert(app, c, alertId);
}

/**
 * After a submit was recorded (or refused by a hard budget): the alerts whose line it crossed.
 * The wallet's alerts (low balance, monthly budget) are the payer's; the key's soft limit is the
 * key's owner's (db/alerts.ts keySoftLimit), who may not be the payer.
 * Cheap when nothing is set: the settings come from this process's short cache. Runs after the
 * answer's work, never failing the submit: an error is logged.
 */
export async function alertsAfterSubmit(app: App, a: { payer: Owner; apiKeyId: number | null; now: number }): Promise<void> {
  const { payer, apiKeyId, now } = a;
  const s = await walletAlertSettings(app, payer);
  if (s && s.lowBalanceThreshold !== null) {
    // read now, not as the hold left it: a check that runs late must not see a balance older
    // than another's crossing (and re-arm the alert for nothing)
    const fresh = await alertSettings(app.db, payer);
    if (fresh && fresh.lowBalanceThreshold !== null) {
      const subject = walletSubject(payer);
      const period = String(fresh.lowBalanceEpoch);
      if (fresh.balance < fresh.lowBalanceThreshold) {
        await crossed(app, { owner: payer, apiKeyId: null, subject, kind: 'low_balance', period, threshold: fresh.lowBalanceThreshold, value: fresh.balance, now });
      } else if (await crossingRecorded(app.db, subject, 'low_balance', period)) {
        // back above the line after an alert: the next crossing alerts again
        await rearmLowBalance(app.db, payer, fresh.lowBalanceEpoch);
      }
    }
  }
  if (s && s.monthlyBudget !== null) {
    const spent = await monthSpend(app.db, payer, now);
    if (spent >= s.monthlyBudget) {
      await crossed(app, { owner: payer, apiKeyId: null, subject: walletSubject(payer), kind: 'monthly_budget', period: monthKey(now), threshold: s.monthlyBudget, value: spent, now });
    }
  }
  if (apiKeyId !== null) {
    const soft = await cached(cacheOf(app).keys, apiKeyId, () => keySoftLimit(app.db, apiKeyId));
    if (soft) {
      const spent = await keySpend(app.db, apiKeyId, soft.period, now);
      const period = soft.period === 'day' ? new Date(now).toISOString().slice(0, 10) : monthKey(now);
      // the key's owner's alert (listed, mailed and sent to their webhook), not the paying wallet's:
      // a studio's user's key paid by the studio's owner, a member's own key used with team_id
      if (spent >= soft.amount) await crossed(app, { owner: soft.owner, apiKeyId, subject: `k:${apiKeyId}`, kind: 'key_soft_limit', period, threshold: soft.amount, value: spent, now });
    }
  }
}

/**
 * Whether the wallet that pays is the caller's own (its account, or the team it acts for with a
 * team key or team_id): not a studio owner's paying for its user (owner_pays), nor an embed code's
 * owner paying for a visitor. Only the caller's own wallet's figures (its budget) are told in a refusal.
 */
export function paysOwnWallet(caller: Pick<Caller, 'embed'> & { owner: Owner }, payer: Owner): boolean {
  if (caller.embed) return false;
  return payer.teamId === null
    ? caller.owner.teamId === null && caller.owner.userId === payer.userId
    : caller.owner.teamId === payer.teamId;
}

/** A hard budget refused a submit: the budget's alert for the month (once), whatever the spend read now. */
export async function budgetRefused(app: App, payer: Owner, budget: number, now: number): Promise<void> {
  const spent = await monthSpend(app.db, payer, now);
  await crossed(app, { owner: payer, apiKeyId: null, subject: walletSubject(payer), kind: 'monthly_budget', period: monthKey(now), threshold: budget, value: spent, now });
}

/** The longest `Prefer: wait` honoured, in seconds; a longer one is clamped to it. */
export const PREFER_WAIT_MAX_S = 60;

/**
 * The `wait` preference of a `Prefer` header (RFC 7240 section 4.3), clamped to
 * PREFER_WAIT_MAX_S; undefined when absent or malformed (a preference is a hint: an
 * unparseable one is ignored, not refused).
 */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const values = Array.isArray(header) ? header : [header];
  for (const value of values) {
    for (const pref of value.split(',')) {
      const m = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*(;.*)?$/i.exec(pref);
      if (m) return Math.min(Number(m[1]), PREFER_WAIT_MAX_S);
    }
  }
  return undefined;
}
