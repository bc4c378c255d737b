// Cross-cutting policies an operation declares in the spec, applied around its handler by the
// route bridge (plugins/spec-routes.ts), and the budgets behind `x-rate-limit`:
//   x-rate-limit: <budget>     a name from RATE_LIMIT_POLICIES (below). Checked after
//                              validation and before the handler; attempt budgets count a request
//                              as a failure until its handler succeeds.
//   x-audit: <event>           an event of AUDIT_EVENTS (./audit.ts), logged when the handler succeeds,
//                              with the fields the handler put on `ctx.audit`.
//   x-audit-refusal: <event>   logged (with the same fields) when the handler refuses the request
//                              with a 4xx.
// Start-up refuses an unknown name, naming the operation. The budgets log nothing themselves: a
// refused budget is recorded as `rate_limited` by withPolicies.
import crypto from 'node:crypto';
import Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';
import type { Operation } from 'openapi-backend';
import ipaddr from 'ipaddr.js';
import { clientIp } from '../lib/addresses.ts';
import { DomainError, RateLimitedError } from '../lib/errors.ts';
import { REGISTER_WINDOW_SECONDS, clearBucket, deleteEndedWindows, hitQuotaWindows, hitWindows, unhitWindow } from '../db/rate-limits.ts';
import { normaliseEmail } from '../db/users.ts';
import type { App, Caller } from '../lib/context.ts';
import type { GenerateRateLimitConfig } from '../config.ts';
import { AUDIT_EVENTS, audit, isAuditEvent } from './audit.ts';
import type { AuditFields, AuthContext, AuthEvent } from './audit.ts';

// ---- the budgets (x-rate-limit) ----
// Budgets of the credential-guessing routes, the code-mailing routes and registration. The
// guessing routes (password: login, cli/login; code: login-otp, verify-otp; reset:
// reset-password) count FAILURES per (email, client address) and per client address, each group
// apart: a correct password from an address that has not failed gets through however hard
// others hammer the email, a success resets its (email, address) count, and successes never
// count. The mailing routes (request-otp, forgot-password) count every request per email and per
// address, so nobody can bury a mailbox in codes. Registration counts every request per address
// (it costs a 32 MiB scrypt hash), and so does starting a Google sign-in (each start keeps a
// state row). The counters live in the database, so the limits hold across
// every API process. Operations name their budget in the spec (`x-rate-limit: <policy>`, one of
// RATE_LIMIT_POLICIES below) and the route bridge applies it (withPolicies, below); the budgets
// log nothing: a refusal is a BudgetExceededError, which withPolicies records as the `rate_limited` event.

/** What a budget needs of a request's context. */
export interface RateLimitContext {
  app: App;
  request: Pick<Request, 'info' | 'headers'> & { app?: Request['app'] };
  /** the authenticated caller and the owner the bridge resolved (the generation limits count per key and per owner) */
  caller?: (Caller & { owner?: { userId: number; teamId: number | null } }) | null;
}

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** RateLimit and RateLimit-Policy of an admitted model submit, written on its answer (plugins/spec-routes.ts) */
    rateLimitHeaders?: Record<string, string>;
  }
}

/** 429 past a budget; `budget` names which one, for the audit line. */
export class BudgetExceededError extends RateLimitedError {
  readonly budget: string;
  constructor(message: string, retryAfterSeconds: number, budget: string, headers: Record<string, string> = {}) {
    super(message, retryAfterSeconds, headers);
    this.budget = budget;
  }
}

/**
 * The client's address as a rate-limit bucket: lib/addresses.ts decides the address (the
 * same one key restrictions and logs see); one IPv6 client usually holds a whole /64, so it
 * counts as one.
 */
export function clientAddress(request: Pick<Request, 'info' | 'headers'>, trustedProxies: readonly string[]): string {
  const addr = clientIp(request, trustedProxies);
  if (!addr) return request.info.remoteAddress;
  if (addr.kind() === 'ipv6') return `${ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/64`).toString()}/64`;
  return addr.toString();
}

function bucket(kind: string, value: string): string {
  // Digests, so the table holds no email addresses; 32 hex characters keep the key short.
  return `${kind}:${crypto.createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32)}`;
}

const SWEEP_EVERY_MS = 60_000;
/** When each database's ended windows were last cleared (per database: two gateways can share a process). */
const lastSweeps = new WeakMap<App['db'], number>();
export { REGISTER_WINDOW_SECONDS };

/** The route groups whose failures are counted apart from each other. */
export type AttemptGroup = 'password' | 'code' | 'reset';

/** An attempt admitted by limitAttempts; report its success so that it does not count. */
export interface Attempt {
  /** Takes the attempt back and starts the (email, address) failure count again from zero. */
  succeeded(): Promise<void>;
}

interface Hits {
  windowStart: number;
  counts: number[];
}

/**
 * Counts one hit in each bucket for the current window of `windowSeconds` (one statement for all of
 * them). With `quotas` (one per bucket), the statement is shared with the other requests of this
 * process counted at the same time, each seeing the counts it would see counted one by one, and a
 * request refused by them (a count above its quota) is taken back already (db/rate-limits.ts
 * hitQuotaWindows).
 */
async function hit(ctx: RateLimitContext, windowSeconds: number, buckets: string[], quotas?: readonly number[]): Promise<Hits> {
  const { app } = ctx;
  const now = app.clock();
  const windowMs = windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  const counts = quotas ? await hitQuotaWindows(app.db, buckets, quotas, windowStart) : await hitWindows(app.db, buckets, windowStart);
  if (now - (lastSweeps.get(app.db) ?? 0) > SWEEP_EVERY_MS) {
    lastSweeps.set(app.db, now);
    // Rows of every budget share the table: only windows older than the longest one have surely ended.
    const longest = Math.max(app.config.authRateLimit.windowSeconds, REGISTER_WINDOW_SECONDS) * 1000;
    deleteEndedWindows(app.db, now - longest).catch((err: unknown) => app.log.warn({ err }, 'could not clear ended rate-limit windows'));
  }
  return { windowStart, counts };
}

function refuse(ctx: RateLimitContext, windowSeconds: number, windowStart: number, budget: string): never {
  const now = ctx.app.clock();
  const retryAfter = Math.max(1, Math.ceil((windowStart + windowSeconds * 1000 - now) / 1000));
  throw new BudgetExceededError(`too many attempts, try again in ${retryAfter} seconds`, retryAfter, budget);
}

/**
 * Admits one guess (password, code or reset code) for this email from this client, or throws 429
 * with Retry-After when this (email, address) pair or this address has failed too often in the
 * window. The guess counts as a failure until `succeeded()` is called, so concurrent guesses
 * cannot get past the budget.
 */
export async function limitAttempts(ctx: RateLimitContext, group: AttemptGroup, email: string): Promise<Attempt> {
  const { app } = ctx;
  const { windowSeconds, perEmail, perAddress } = app.config.authRateLimit;
  const address = clientAddress(ctx.request, app.config.trustedProxies);
  const pair = bucket(`${group}-pair`, `${normaliseEmail(email)}\0${address}`);
  const byAddress = bucket(`${group}-addr`, address);
  const { windowStart, counts: [pairFailures = 0, addressFailures = 0] } = await hit(ctx, windowSeconds, [pair, byAddress]);
  if (addressFailures > perAddress) refuse(ctx, windowSeconds, windowStart, `${group} per address`);
  if (pairFailures > perEmail) refuse(ctx, windowSeconds, windowStart, `${group} per email and address`);
  return {
    async succeeded() {
      try {
        await Promise.all([clearBucket(app.db, pair), unhitWindow(app.db, byAddress, windowStart)]);
      } catch (err) {
        // The sign-in itself succeeded; a counter left behind only costs the client one attempt.
        app.log.warn({ err }, 'could not reset a rate-limit counter after a success');
      }
    },
  };
}

/** Counts one code mail (request-otp, forgot-password) for this email and client; 429 past either budget. */
export async function limitMails(ctx: RateLimitContext, email: string): Promise<void> {
  const { app } = ctx;
  const { windowSeconds, perAddress, mailsPerEmail } = app.config.authRateLimit;
  const address = clientAddress(ctx.request, app.config.trustedProxies);
  const { windowStart, counts: [byAddress = 0, byEmail = 0] } = await hit(ctx, windowSeconds, [bucket('mail-addr', address), bucket('mail-email', normaliseEmail(email))]);
  if (byAddress > perAddress) refuse(ctx, windowSeconds, windowStart, 'mail per address');
  if (byEmail > mailsPerEmail) refuse(ctx, windowSeconds, windowStart, 'mail per email');
}

/** Counts one registration from this client; 429 past REGISTER_RATE_PER_ADDRESS per hour. Call it before hashing. */
export async function limitRegistrations(ctx: RateLimitContext): Promise<void> {
  const { app } = ctx;
  const address = clientAddress(ctx.request, app.config.trustedProxies);
  const { windowStart, counts: [byAddress = 0] } = await hit(ctx, REGISTER_WINDOW_SECONDS, [bucket('register-addr', address)]);
  if (byAddress > app.config.authRateLimit.registerPerAddress) refuse(ctx, REGISTER_WINDOW_SECONDS, windowStart, 'registration per address');
}

/**
 * Counts one Google sign-in start (getGoogleUrl) from this client; 429 past AUTH_RATE_PER_ADDRESS per
 * window. Each start keeps a state row for 10 minutes, so without a budget anyone could fill that table.
 */
export async function limitSignInStarts(ctx: RateLimitContext): Promise<void> {
  const { app } = ctx;
  const { windowSeconds, perAddress } = app.config.authRateLimit;
  const address = clientAddress(ctx.request, app.config.trustedProxies);
  const { windowStart, counts: [byAddress = 0] } = await hit(ctx, windowSeconds, [bucket('sign-in-start-addr', address)]);
  if (byAddress > perAddress) refuse(ctx, windowSeconds, windowStart, 'sign-in starts per address');
}

/** Submits per minute per client address with an embed code that sets no limit of its own. */
export const EMBED_RATE_PER_ADDRESS = 10;

/** The window of the generation request limits: requests per minute. */
export const GENERATION_WINDOW_SECONDS = 60;

/** The limits that apply to this caller: the key's own where it set them, else the defaults (0: no limit). */
export function generationLimits(config: GenerateRateLimitConfig, caller: Pick<Caller, 'apiKeyId' | 'keyLimits'>) {
  const viaKey = caller.apiKeyId !== null;
  return {
    keyPerMinute: viaKey ? caller.keyLimits?.rateLimitPerMinute ?? config.perKeyPerMinute : 0,
    accountPerMinute: config.perAccountPerMinute,
    concurrentPerKey: viaKey ? caller.keyLimits?.maxConcurrent ?? config.concurrentPerKey : 0,
    concurrentPerAccount: config.concurrentPerAccount,
  };
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10, structured fields): one
 * policy per limit that applies, `q` the quota and `w` the window in seconds; `r` what is left
 * and `t` the seconds until the window resets.
 */
export function rateLimitFields(policies: ReadonlyArray<{ name: string; quota: number; remaining: number }>, windowSeconds: number, resetSeconds: number): Record<string, string> {
  if (policies.length === 0) return {};
  return {
    'RateLimit-Policy': policies.map((p) => `"${p.name}";q=${p.quota};w=${windowSeconds}`).join(', '),
    RateLimit: policies.map((p) => `"${p.name}";r=${Math.max(0, p.remaining)};t=${resetSeconds}`).join(', '),
  };
}

/**
 * Counts one model submit against the requests-per-minute limits of the presenting key and of the
 * owner (the user, or the team whose wallet pays; its sandbox submits apart from its production
 * ones), in fixed one-minute windows shared by every API process. A refused submit does not count. Admitted submits carry RateLimit headers on their
 * answer; refused ones get 429 with Retry-After and the same headers. The concurrency limits are
 * checked later, in the submit's own transaction (handlers/generate.ts, the store's submit: db/store/types.ts).
 */
export async function limitGenerations(ctx: RateLimitContext): Promise<void> {
  const { app, caller } = ctx;
  if (!caller) return;
  const limits = generationLimits(app.config.generateRateLimit, caller);
  // the bridge resolves the owner of every protected operation before the policies run
  const { teamId, userId } = caller.owner ?? { userId: caller.userId, teamId: caller.keyTeamId ?? null };
  const counted: Array<{ name: string; bucket: string; quota: number }> = [];
  if (limits.keyPerMinute > 0 && caller.apiKeyId !== null) counted.push({ name: 'key', bucket: `gen-key:${caller.apiKeyId}`, quota: limits.keyPerMinute });
  // sandbox keys count apart from production (as their Idempotency-Keys do): a test run never eats the account's production budget
  const mode = caller.isTest ? '-test' : '';
  if (limits.accountPerMinute > 0) counted.push({ name: 'account', bucket: teamId === null ? `gen-user${mode}:${userId}` : `gen-team${mode}:${teamId}`, quota: limits.accountPerMinute });
  // an embed code's visitors: per client address and code (README "Embeds")
  if (caller.embed) counted.push({ name: 'address', bucket: bucket(`gen-embed-${caller.embed.codeId}`, clientAddress(ctx.request, app.config.trustedProxies)), quota: caller.embed.rateLimitPerMinute ?? EMBED_RATE_PER_ADDRESS });
  if (counted.length === 0) return;
  // a count above its quota refuses the request, as `over` below finds
  const { windowStart, counts } = await hit(ctx, GENERATION_WINDOW_SECONDS, counted.map((c) => c.bucket), counted.map((c) => c.quota));
  const now = app.clock();
  const resetSeconds = Math.max(1, Math.ceil((windowStart + GENERATION_WINDOW_SECONDS * 1000 - now) / 1000));
  const over = counted.find((c, i) => (counts[i] ?? 0) > c.quota);
  if (over) {
    // hitQuotaWindows already took the refused request back, so that a client retrying too fast is not kept out longer.
    const fields = rateLimitFields(counted.map((c, i) => ({ name: c.name, quota: c.quota, remaining: c.quota - ((counts[i] ?? 1) - 1) })), GENERATION_WINDOW_SECONDS, resetSeconds);
    const per = over.name === 'key' ? 'API key' : over.name === 'address' ? 'client address for this embed code' : 'account';
    throw new BudgetExceededError(`rate limit of ${over.quota} requests per minute per ${per} reached, try again in ${resetSeconds} seconds`, resetSeconds, `generations per ${over.name}`, fields);
  }
  const fields = rateLimitFields(counted.map((c, i) => ({ name: c.name, quota: c.quota, remaining: c.quota - (counts[i] ?? 0) })), GENERATION_WINDOW_SECONDS, resetSeconds);
  if (ctx.request.app) ctx.request.app.rateLimitHeaders = fields;
}

/** Test events an account (or team) may send per minute: each is a request the gateway makes to a URL the caller names. */
export const WEBHOOK_TESTS_PER_MINUTE = 10;

async function limitWebhookTests(ctx: RateLimitContext): Promise<void> {
  const { app, caller } = ctx;
  if (!caller) return;
  const { teamId, userId } = caller.owner ?? { userId: caller.userId, teamId: caller.keyTeamId ?? null };
  const name = teamId === null ? `hook-test-user:${userId}` : `hook-test-team:${teamId}`;
  const { windowStart, counts } = await hit(ctx, GENERATION_WINDOW_SECONDS, [name], [WEBHOOK_TESTS_PER_MINUTE]);
  if ((counts[0] ?? 0) <= WEBHOOK_TESTS_PER_MINUTE) return;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + GENERATION_WINDOW_SECONDS * 1000 - app.clock()) / 1000));
  throw new BudgetExceededError(`at most ${WEBHOOK_TESTS_PER_MINUTE} test events a minute per account, try again in ${resetSeconds} seconds`, resetSeconds, 'webhook tests');
}

/**
 * The budgets an operation can name in the spec (`x-rate-limit`). `email: true` budgets are keyed
 * by the body's `email`, so start-up refuses them on an operation whose body has none. `admit`
 * runs before the handler; when it returns an Attempt, the bridge reports the handler's success
 * to it (only failures count).
 */
export const RATE_LIMIT_POLICIES = {
  'password-attempts': { email: true, admit: (ctx: RateLimitContext, email: string) => limitAttempts(ctx, 'password', email) },
  'code-attempts': { email: true, admit: (ctx: RateLimitContext, email: string) => limitAttempts(ctx, 'code', email) },
  'reset-attempts': { email: true, admit: (ctx: RateLimitContext, email: string) => limitAttempts(ctx, 'reset', email) },
  'code-mails': { email: true, admit: (ctx: RateLimitContext, email: string) => limitMails(ctx, email) },
  registrations: { email: false, admit: (ctx: RateLimitContext) => limitRegistrations(ctx) },
  // Google sign-in starts: each keeps a state row for 10 minutes; every request counts, per address.
  'sign-in-starts': { email: false, admit: (ctx: RateLimitContext) => limitSignInStarts(ctx) },
  // Team invites mail whoever the body names: the same mail budgets as code mails, shared with them,
  // so no address can be flooded through either route.
  'invite-mails': { email: true, admit: (ctx: RateLimitContext, email: string) => limitMails(ctx, email) },
  // Model submits: per key and per account, requests per minute (the catalog requires it on every model endpoint).
  generations: { email: false, admit: (ctx: RateLimitContext) => limitGenerations(ctx) },
  // Webhook test events: requests the gateway makes to a URL the caller names, so a few a minute.
  'webhook-tests': { email: false, admit: (ctx: RateLimitContext) => limitWebhookTests(ctx) },
} as const satisfies Record<string, { email: boolean; admit: (ctx: RateLimitContext, email: string) => Promise<Attempt | void> }>;

export type RateLimitPolicy = keyof typeof RATE_LIMIT_POLICIES;

export function isRateLimitPolicy(v: unknown): v is RateLimitPolicy {
  return typeof v === 'string' && Object.hasOwn(RATE_LIMIT_POLICIES, v);
}

// ---- applying the policies around a handler ----

export interface OperationPolicies {
  rateLimit?: RateLimitPolicy;
  audit?: AuthEvent;
  auditRefusal?: AuthEvent;
}

/** What applying the policies needs of the handler's context. */
export interface PolicyContext extends AuthContext {
  body: Record<string, unknown>;
  audit: AuditFields;
  /** the caller and resolved owner (the generation budget counts per key and per owner) */
  caller?: RateLimitContext['caller'];
}

function bodyProperties(operation: Operation): Record<string, unknown> {
  const content = (operation.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content;
  return content?.['application/json']?.schema?.properties ?? {};
}

/** The policies an operation declares, checked: an unknown name stops start-up, naming the operation. */
export function policiesOf(operationId: string, operation: Operation): OperationPolicies {
  const ext = operation as unknown as Record<string, unknown>;
  const policies: OperationPolicies = {};
  const rateLimit = ext['x-rate-limit'];
  if (rateLimit !== undefined) {
    if (!isRateLimitPolicy(rateLimit)) throw new Error(`${operationId}: x-rate-limit must be one of ${Object.keys(RATE_LIMIT_POLICIES).join(', ')}`);
    if (RATE_LIMIT_POLICIES[rateLimit].email && !('email' in bodyProperties(operation))) {
      throw new Error(`${operationId}: x-rate-limit ${rateLimit} counts per email, but the operation's JSON body has no email`);
    }
    policies.rateLimit = rateLimit;
  }
  for (const [name, key] of [['x-audit', 'audit'], ['x-audit-refusal', 'auditRefusal']] as const) {
    const event = ext[name];
    if (event === undefined) continue;
    if (!isAuditEvent(event)) throw new Error(`${operationId}: ${name} must be one of ${Object.keys(AUDIT_EVENTS).join(', ')}`);
    policies[key] = event;
  }
  return policies;
}

export function hasPolicies(p: OperationPolicies): boolean {
  return p.rateLimit !== undefined || p.audit !== undefined || p.auditRefusal !== undefined;
}

/** A refusal of the request (4xx), as opposed to a fault (5xx) or success. */
function isRefusal(err: unknown): boolean {
  const status = err instanceof DomainError ? err.status : Boom.isBoom(err) ? err.output.statusCode : 500;
  return status >= 400 && status < 500;
}

/** A hapi response the handler built itself with an error status (h.response(...).code(4xx)). */
function answeredError(result: unknown): boolean {
  const status = typeof result === 'object' && result !== null ? (result as { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' && status >= 400;
}

/** Runs the handler (`run`) inside the operation's declared policies. */
export async function withPolicies<T>(policies: OperationPolicies, ctx: PolicyContext, run: () => Promise<T>): Promise<T> {
  let attempt: { succeeded(): Promise<void> } | void = undefined;
  if (policies.rateLimit) {
    const email = ctx.body.email;
    try {
      attempt = await RATE_LIMIT_POLICIES[policies.rateLimit].admit(ctx, typeof email === 'string' ? email : '');
    } catch (err) {
      if (err instanceof BudgetExceededError) audit(ctx, 'rate_limited', { budget: err.budget });
      throw err;
    }
  }
  let result: T;
  try {
    result = await run();
  } catch (err) {
    if (policies.auditRefusal && isRefusal(err)) audit(ctx, policies.auditRefusal, ctx.audit);
    throw err;
  }
  if (answeredError(result)) {
    if (policies.auditRefusal) audit(ctx, policies.auditRefusal, ctx.audit);
    return result;
  }
  if (attempt) await attempt.succeeded();
  if (policies.audit) audit(ctx, policies.audit, ctx.audit);
  return result;
}
