// The payment processor, Stripe (README "Payments (Stripe)"), through the official SDK: the
// client (one per secret key, kept for the process), what a payment buys in credits, the credits
// a (partial) refund takes back, the idempotency key a refund is sent with, Stripe's errors as
// the gateway's, and cancelling a subscription at Stripe (its wallet gone, or its plan ended on the gateway). Transport-free apart from the SDK itself; no hapi, no SQL.
//
// The SDK (some 150 ms to import) is loaded by the first call that needs it (stripeSdk: a client,
// a webhook's signature), not at start-up: most processes never talk to Stripe. Its types are
// imported as types only.
import crypto from 'node:crypto';
import type Stripe from 'stripe';
import type { StripeConfig } from '../config.ts';
import { ConflictError, NotFoundError, UnavailableError } from './errors.ts';
import { onFirstUse } from './first-use.ts';

export type { Stripe };

/** The SDK once loaded: an error of the SDK implies it is, so fromStripeError can stay synchronous. */
let sdk: typeof Stripe | undefined;

/** The SDK's class (its statics: webhooks, errors), imported by the first call; a failed import is tried again by the next. */
export const stripeSdk = onFirstUse(async () => (sdk = (await import('stripe')).default));

const clients = new Map<string, Stripe>();

/** The SDK client for STRIPE_SECRET_KEY; 503 naming the variable when it is unset. */
export async function stripeClient(config: StripeConfig): Promise<Stripe> {
  if (!config.secretKey) throw new UnavailableError('payments are not configured on this gateway: STRIPE_SECRET_KEY is not set');
  let client = clients.get(config.secretKey);
  if (!client) {
    const Sdk = await stripeSdk();
    // Retries are safe: every write is sent with an idempotency key, and the SDK adds one to a
    // retried POST that has none. Another call may have made it during the import.
    client = clients.get(config.secretKey) ?? new Sdk(config.secretKey, { maxNetworkRetries: 2, timeout: 20_000 });
    clients.set(config.secretKey, client);
  }
  return client;
}

/** The webhook signing secret; 503 naming the variable when it is unset. */
export function webhookSecret(config: StripeConfig): string {
  if (!config.webhookSecret) throw new UnavailableError('Stripe webhooks are not configured on this gateway: STRIPE_WEBHOOK_SECRET is not set');
  return config.webhookSecret;
}

/** Stripe's currencies whose minor unit is not a hundredth (https://docs.stripe.com/currencies). */
const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

function minorUnitsPerUnit(currency: string): bigint {
  if (ZERO_DECIMAL.has(currency)) return 1n;
  if (THREE_DECIMAL.has(currency)) return 1000n;
  return 100n;
}

/**
 * The credits a payment of `amount` minor units buys: `metadata.credits` when the operator's
 * Checkout Session or Payment Link sets it (a pack with a bonus), else the configured rate in the
 * configured currency (rounded down). undefined: another currency and no `metadata.credits`, an
 * amount that is not a whole number of minor units (nothing is bought with a malformed amount), or
 * more credits than 2^53 - 1.
 */
export function creditsForPayment(config: StripeConfig, amount: number, currency: string, metadata: Record<string, string> | null | undefined): number | undefined {
  if (!Number.isSafeInteger(amount) || amount < 0) return undefined;
  const fixed = metadata?.credits;
  if (fixed !== undefined && /^[1-9][0-9]{0,14}$/.test(fixed) && Number.isSafeInteger(Number(fixed))) return Number(fixed);
  if (currency.toLowerCase() !== config.currency) return undefined;
  const credits = (BigInt(amount) * BigInt(config.creditsPerUnit)) / minorUnitsPerUnit(config.currency);
  // more than the gateway keeps exactly (a large payment at a large rate): nothing is bought
  return credits <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(credits) : undefined;
}

/**
 * The credits a refund of `amount` (minor units) takes back from a payment that bought `credits`
 * for `paid`, when earlier refunds took `refundedBefore` minor units and `creditsBefore` credits:
 * proportional and cumulative, so refunds adding up to the whole payment take back exactly every
 * credit it bought, never more (rounded to the nearest credit, halves up).
 */
export function creditsForRefund(paid: number, credits: number, refundedBefore: number, creditsBefore: number, amount: number): number {
  if (paid <= 0) return 0;
  const after = BigInt(Math.min(paid, refundedBefore + amount));
  const target = (2n * BigInt(credits) * after + BigInt(paid)) / (2n * BigInt(paid));
  const take = Number(target) - creditsBefore;
  return Math.max(0, Math.min(credits - creditsBefore, take));
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/**
 * The Idempotency-Key a refund is sent to Stripe with. With the caller's own Idempotency-Key (the
 * bridge already answers a replay of the same key and body without running the handler), a retry
 * after a lost answer sends the same key, so Stripe returns the refund it made. Without one, the
 * key is the charge, the amount and how much of the charge Stripe had refunded when we asked:
 * two identical requests racing make one refund; a later one, after the first was recorded, is
 * a new refund (of what is left).
 */
export function refundIdempotencyKey(chargeId: string, amount: number, amountRefunded: number, callerKey: string | undefined, callerUserId: number): string {
  if (callerKey !== undefined) return `mediagate-refund-${sha256(`${callerUserId}\n${callerKey}\n${chargeId}\n${amount}`)}`;
  return `mediagate-refund-${sha256(`${chargeId}\n${amount}\n${amountRefunded}`)}`;
}

/** The id of an expandable Stripe field (a string, or the expanded object). */
export function idOf(field: string | { id: string } | null | undefined): string | undefined {
  if (field === null || field === undefined) return undefined;
  return typeof field === 'string' ? field : field.id;
}

/**
 * A Stripe SDK error as the gateway's: an unknown object is 404, a request Stripe refuses (a
 * charge already refunded, an amount too large, an idempotency key still in flight) 409 with
 * Stripe's message, anything else (the
 * network, Stripe's own errors, a refused key) 503. Never echoes the key.
 */
export function fromStripeError(err: unknown, what: string): Error {
  // not loaded: nothing can have thrown one of its errors
  if (!sdk || !(err instanceof sdk.errors.StripeError)) return err as Error;
  const { errors } = sdk;
  if (err.code === 'resource_missing') return new NotFoundError(`${what} not found at Stripe`);
  if (err instanceof errors.StripeInvalidRequestError || err instanceof errors.StripeCardError || err instanceof errors.StripeIdempotencyError) {
    return new ConflictError(`Stripe refused it: ${err.message}`);
  }
  if (err instanceof errors.StripeAuthenticationError || err instanceof errors.StripePermissionError) {
    return new UnavailableError('Stripe refused STRIPE_SECRET_KEY (revoked, or missing a permission); nothing was changed');
  }
  return new UnavailableError(`Stripe cannot be reached now (${err.type}); try again`);
}

/**
 * Cancels a Stripe subscription at once (`DELETE /v1/subscriptions/{id}`, without proration and
 * without a final invoice): Stripe charges it no more. `cancelled` when Stripe cancelled it now,
 * `gone` when Stripe answers that it has no such subscription or that it is already canceled
 * (Stripe answers a canceled subscription's DELETE with "No such subscription"): either way it
 * charges nothing more. Throws the gateway's error (fromStripeError, or 503 without
 * STRIPE_SECRET_KEY) otherwise. The outbox of cancellations (workers/stripe-cancellations.ts)
 * calls it and tries again until it succeeds.
 */
export async function cancelStripeSubscription(config: StripeConfig, subscriptionId: string): Promise<'cancelled' | 'gone'> {
  const stripe = await stripeClient(config);
  try {
    await stripe.subscriptions.cancel(subscriptionId);
    return 'cancelled';
  } catch (err) {
    if (sdk && err instanceof sdk.errors.StripeError
      && (err.code === 'resource_missing' || (err instanceof sdk.errors.StripeInvalidRequestError && /\bcancell?ed subscription\b/i.test(err.message)))) return 'gone';
    throw fromStripeError(err, 'subscription');
  }
}

/** The items of a list Stripe answered; 503 for an answer that is not a list. */
export function listData<T>(page: { data: T[] } | null | undefined): T[] {
  if (!page || !Array.isArray(page.data)) throw new UnavailableError('Stripe\'s answer was not a list; try again');
  return page.data;
}

/** Runs one SDK call, mapping its errors (fromStripeError). */
export async function stripeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw fromStripeError(err, what);
  }
}
