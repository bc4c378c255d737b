// Google sign-in: get-google-url starts an authorization-code flow (state, nonce, PKCE kept
// server-side), google_callback completes it, google/mobile accepts an ID token from an app.
// Each ends in a session for the linked account, created on first sign-in. A sign-in started on a
// studio's own domain ends there through google_handoff: Google returns to the gateway's address,
// whose cookie the studio's domain cannot read, so the callback hands a single-use code over.
// A sign-in asked for as a cookie session ends only in the browser that started it: the start sets
// a cookie holding the state (lib/session-cookie.ts), which the callback, or the hand-off, requires.
import crypto from 'node:crypto';
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { App } from '../lib/context.ts';
import type { GoogleConfig } from '../config.ts';
import type { Handler } from './types.ts';
import { ConflictError, ForbiddenError, InvalidInputError, UnauthorizedError, UnavailableError } from '../lib/errors.ts';
import { hasPendingInvite } from '../db/teams.ts';
import { REGISTRATION_CLOSED } from './auth.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { cookieSecure, signInStateCookieName, signInStateCookieOptions } from '../lib/session-cookie.ts';
import { AUTH_REQUEST_TTL_MS, savePendingAuthRequest, takePendingAuthRequest } from '../db/oauth-states.ts';
import { findIdentityUserId, linkIdentity } from '../db/identities.ts';
import { createUser, findUserByEmail, verifyEmail } from '../db/users.ts';
import { findActiveStudio, studioOfUser } from '../db/studios.ts';
import { saveHandoff, takeHandoff } from '../db/session-handoffs.ts';
import { takeBackAccount } from '../db/credentials.ts';
import type { TakenBack } from '../db/credentials.ts';
import { afterTakeBack, takenBackAudit } from './take-back.ts';
import { DuplicateError } from '../db/errors.ts';
import { withLockRetry } from '../db/retry.ts';
import { completeAuthorization, ProviderUnavailableError, SignInRefusedError, startAuthorization, verifyIdToken } from './google-oidc.ts';
import type { ExternalIdentity } from './google-oidc.ts';
import { startSession, startSessionAndRedirect } from './session.ts';
import { audit } from './audit.ts';
import type { AuditFields, AuthContext } from './audit.ts';

const PROVIDER = 'google';

/** The sign-in routes' context: the audit fields their declared events (x-audit: signed_in) carry. */
type SignInContext = AuthContext & { audit: AuditFields };

function googleConfig(app: App): GoogleConfig {
  if (!app.config.google) throw new UnavailableError('Google sign-in is not configured on this gateway (set GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)');
  return app.config.google;
}

/** The provider's refusals as 401 (logged as sign_in_refused, x-audit-refusal, with the reason), its outages as 503. */
async function viaProvider<T>(ctx: SignInContext, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ProviderUnavailableError) throw new UnavailableError(err.message);
    if (err instanceof SignInRefusedError) {
      Object.assign(ctx.audit, { method: PROVIDER, reason: err.message });
      throw new UnauthorizedError(err.message);
    }
    throw err;
  }
}

/** A sign-in finds only accounts of the studio it happens in (null: outside every studio), as a password login does. */
async function sameStudio(db: App['db'], userId: number, studioId: number | null): Promise<void> {
  if (await studioOfUser(db, userId) !== studioId) {
    throw new UnauthorizedError(studioId === null
      ? 'this Google account signs in to a whitelabel studio, not here: sign in on the studio\'s site'
      : 'this Google account has no account in this studio (it signs in elsewhere)');
  }
}

/**
 * The local account for an external identity in the studio the sign-in happens in (README
 * "Whitelabel studios"; null: outside every studio): the linked one; else the account with the
 * same email, linked now if the provider verified that email; else a new account without a
 * password, in that studio. An account of another studio (or of none) is refused with 401.
 */
async function accountFor(app: App, id: ExternalIdentity, studioId: number | null): Promise<{ userId: number; linked: 'before' | 'existing account' | 'new account'; takenBack?: TakenBack }> {
  const linked = await findIdentityUserId(app.db, PROVIDER, id.subject);
  if (linked !== undefined) {
    await sameStudio(app.db, linked, studioId);
    return { userId: linked, linked: 'before' };
  }
  const { email } = id;
  if (!email) throw new UnauthorizedError('Google did not share an email address with this gateway');
  const now = app.clock();
  // Retried whole on a deadlock or lock wait timeout (db/retry.ts), which rolls every step back:
  // only the attempt that commits takes the account back, and nothing in it acts outside the database.
  const account = await withLockRetry(() => app.db.transaction(async (trx): Promise<{ userId: number; linked: 'existing account' | 'new account'; takenBack?: TakenBack }> => {
    const existing = await findUserByEmail(trx, email);
    if (existing) {
      await sameStudio(trx, existing.id, studioId);
      if (!id.emailVerified) throw new ConflictError('an account with this email already exists and Google has not verified the address: sign in with the password');
      // Whoever chose this account's password never proved the address; its owner just has.
      // Everything they could have set up goes (protection against pre-registration takeover):
      // the password, sessions, API keys, OAuth clients and tokens, the webhook secret, the
      // identities linked until now (only an unverified address can have linked one), embed
      // codes, studios, the invites it sent and the alert webhook URL.
      const takenBack = existing.emailVerified ? undefined : await takeBackAccount(trx, existing.id, { passwordHash: null, encryptionKey: app.encryptionKey, now });
      // Google vouches for the address: verified, with the sign-up credit if it was never granted.
      await verifyEmail(trx, existing.id, app.config.signupCredit, now);
      await linkIdentity(trx, existing.id, PROVIDER, id.subject, now);
      return { userId: existing.id, linked: 'existing account', ...(takenBack ? { takenBack } : {}) };
    }
    // REGISTRATION=closed: the same rule as /auth/register (an invited address only)
    if (app.config.registration === 'closed' && !(await hasPendingInvite(trx, email, now))) throw new ForbiddenError(REGISTRATION_CLOSED);
    const user = await createUser(trx, email, null, now, { studioId });
    // The sign-up credit only for an address Google verified; otherwise it comes with verify-otp.
    if (id.emailVerified) await verifyEmail(trx, user.id, app.config.signupCredit, now);
    await linkIdentity(trx, user.id, PROVIDER, id.subject, now);
    return { userId: user.id, linked: 'new account' };
  }));
  // committed: every API process drops the revoked keys before the sign-in answers (README "Credential cache")
  if (account.takenBack) await afterTakeBack(app, account.userId);
  return account;
}

/** The account the identity signs in to (found, linked or created), recorded on the audit event. */
async function signedInUser(ctx: SignInContext, id: ExternalIdentity, method: string, studioId: number | null): Promise<number> {
  const { app } = ctx;
  ctx.audit.method = method;
  let userId: number;
  try {
    const account = await accountFor(app, id, studioId);
    userId = account.userId;
    if (account.linked !== 'before') audit(ctx, 'identity_linked', { userId, provider: PROVIDER, to: account.linked });
    // what was taken back from whoever registered the account, on the sign-in's event
    if (account.takenBack) Object.assign(ctx.audit, { passwordRemoved: true, ...takenBackAudit(account.takenBack) });
  } catch (err) {
    // Two first sign-ins of one identity raced: the other one created the link.
    if (!(err instanceof DuplicateError)) throw err;
    const linked = await findIdentityUserId(app.db, PROVIDER, id.subject);
    if (linked === undefined) throw new ConflictError(err.message);
    userId = linked;
  }
  ctx.audit.userId = userId;
  return userId;
}

/**
 * Where a cookie sign-in sends the browser back to: a studio's storefront under the gateway's
 * host (the callback is at PUBLIC_URL, so the cookie is set there), the dashboard on a studio's
 * own domain (an absolute address: the callback hands the session over to it), or a page of the
 * dashboard.
 */
function returnPage(ctx: Parameters<Handler<'getGoogleUrl'>>[0]): string {
  const { studio, query, request, app } = ctx;
  if (studio?.by === 'domain') {
    // the Host named this studio's domain (plugins/credentials.ts); its scheme is the gateway's
    return `${new URL(app.config.publicUrl).protocol}//${request.headers.host}/dashboard`;
  }
  if (studio !== undefined) return `/s/${studio.slug}`;
  return query.return_to !== undefined && query.return_to.startsWith('/dashboard') ? query.return_to : '/dashboard';
}

/** Prefix of a hand-off code (an HMAC of the sign-in's state, 256 bits; only its SHA-256 is stored). */
const HANDOFF_PREFIX = 'mgh_';

const handoffKeys = new WeakMap<Buffer, Buffer>();

/**
 * The hand-off code of a sign-in: an HMAC of its state under a key derived from ENCRYPTION_KEY
 * (HKDF, used for nothing else). Unguessable without the key, and the hand-off redeems it only for
 * the browser whose state cookie gives the same code: the one that started the sign-in.
 */
function handoffCodeFor(encryptionKey: Buffer, state: string): string {
  let key = handoffKeys.get(encryptionKey);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'mediagate google handoff v1', 32));
    handoffKeys.set(encryptionKey, key);
  }
  return HANDOFF_PREFIX + crypto.createHmac('sha256', key).update(state).digest('base64url');
}

/** The state this browser's sign-in started with (its cookie on this host), if any. */
function startedState(app: App, request: Request): string | undefined {
  const value = (request.state as Record<string, unknown> | null)?.[signInStateCookieName(cookieSecure(app.config.publicUrl))];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Removes the state cookie once the sign-in it was for has ended in a session. */
function withoutStateCookie(app: App, response: ResponseObject): ResponseObject {
  const secure = cookieSecure(app.config.publicUrl);
  return response.unstate(signInStateCookieName(secure), signInStateCookieOptions(secure, AUTH_REQUEST_TTL_MS));
}

const OTHER_BROWSER = 'this sign-in was not started in this browser, or was started at another address of this gateway (the cookie set at its start is missing): sign in again from the sign-in page';

/** The callback of a sign-in started on a studio's domain: a single-use code for that domain, which turns it into its own cookie session. */
async function handOff(ctx: SignInContext & { h: ResponseToolkit }, userId: number, studioId: number | null, returnTo: string, state: string): Promise<ResponseObject> {
  const { app } = ctx;
  const target = new URL(returnTo);
  const studio = await findActiveStudio(app.db, { hostname: target.hostname });
  if (studioId === null || studio?.id !== studioId) {
    Object.assign(ctx.audit, { method: PROVIDER, reason: 'studio domain gone' });
    throw new InvalidInputError('the studio this sign-in started in no longer serves that domain: sign in again on the studio\'s site');
  }
  const code = handoffCodeFor(app.encryptionKey, state);
  await saveHandoff(app.db, sha256Hex(code), { userId, studioId }, app.clock());
  return ctx.h.redirect(`${target.origin}/auth/google_handoff?code=${encodeURIComponent(code)}`).code(302).header('Cache-Control', 'no-store');
}

export const getGoogleUrl: Handler<'getGoogleUrl'> = async (ctx) => {
  const { app } = ctx;
  const request = await viaProvider(ctx, startAuthorization(googleConfig(app)));
  // Google's redirect to the callback carries no studio header, nor how the session is wanted: the pending request remembers both
  const returnTo = ctx.query.session === 'cookie' ? returnPage(ctx) : null;
  await savePendingAuthRequest(app.db, sha256Hex(request.state), { nonce: request.nonce, codeVerifier: request.codeVerifier, studioId: ctx.studio?.id ?? null, returnTo }, app.clock());
  if (returnTo === null) return { url: request.url.href };
  // the browser asking now is the one the session will be for (on this host: the gateway's, or a studio's domain)
  const secure = cookieSecure(app.config.publicUrl);
  return ctx.h.response({ url: request.url.href })
    .state(signInStateCookieName(secure), request.state, signInStateCookieOptions(secure, AUTH_REQUEST_TTL_MS))
    .header('Cache-Control', 'no-store');
};

export const googleCallback: Handler<'googleCallback'> = async (ctx) => {
  const { app } = ctx;
  const g = googleConfig(app);
  const { state } = ctx.query;
  const pending = await takePendingAuthRequest(app.db, sha256Hex(state), app.clock());
  if (!pending) {
    Object.assign(ctx.audit, { method: PROVIDER, reason: 'unknown, expired or used state' });
    throw new InvalidInputError('unknown, expired or already used sign-in state: start again from /auth/get-google-url');
  }
  // a cookie session on this address, only for the browser that started the sign-in (one started on
  // a studio's own domain holds its cookie there: the hand-off checks it)
  if (pending.returnTo !== null && pending.returnTo.startsWith('/')) {
    const started = startedState(app, ctx.request);
    if (started === undefined || !sameText(started, state)) {
      Object.assign(ctx.audit, { method: PROVIDER, reason: 'callback in another browser' });
      throw new InvalidInputError(OTHER_BROWSER);
    }
  }
  // Everything the provider sent (code, state, iss, ...) goes to the library, as received.
  const identity = await viaProvider(ctx, completeAuthorization(g, new URLSearchParams(ctx.request.url.search), { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier }));
  const userId = await signedInUser(ctx, identity, 'google', pending.studioId);
  if (pending.returnTo === null) return startSession(ctx, userId);
  if (!pending.returnTo.startsWith('/')) return handOff(ctx, userId, pending.studioId, pending.returnTo, state);
  const studioSlug = /^\/s\/([a-z0-9-]+)/.exec(pending.returnTo)?.[1];
  return withoutStateCookie(app, await startSessionAndRedirect(ctx, userId, `${app.config.publicUrl}${pending.returnTo}`, studioSlug));
};

/** GET /auth/google_handoff on a studio's domain: the code the callback handed over becomes this domain's cookie session. */
export const googleHandoff: Handler<'googleHandoff'> = async (ctx) => {
  const { app, studio } = ctx;
  // only the browser that started the sign-in on this domain holds the state the code was made from
  const started = startedState(app, ctx.request);
  if (started === undefined || !sameText(handoffCodeFor(app.encryptionKey, started), ctx.query.code)) {
    Object.assign(ctx.audit, { method: PROVIDER, reason: 'hand-off in another browser' });
    throw new InvalidInputError(OTHER_BROWSER);
  }
  const handoff = await takeHandoff(app.db, sha256Hex(ctx.query.code), app.clock());
  // a code is for the one studio domain the sign-in started on
  if (!handoff || studio?.id !== handoff.studioId) {
    Object.assign(ctx.audit, { method: PROVIDER, reason: 'unknown, expired or used hand-off' });
    throw new InvalidInputError('this sign-in link is unknown, expired (it lasts a minute) or already used: sign in again');
  }
  ctx.audit.userId = handoff.userId;
  return withoutStateCookie(app, await startSessionAndRedirect(ctx, handoff.userId, '/dashboard', studio.slug));
};

export const googleMobileLogin: Handler<'googleMobileLogin'> = async (ctx) => {
  const { app } = ctx;
  const identity = await viaProvider(ctx, verifyIdToken(googleConfig(app), ctx.body.id_token));
  return startSession(ctx, await signedInUser(ctx, identity, 'google-mobile', ctx.studio?.id ?? null));
};
