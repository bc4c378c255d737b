// What every login route answers: a new opaque session (SessionResponse), or, asked for with
// `session=cookie`, the same session as the dashboard's HttpOnly cookie and its CSRF token
// (CookieSessionResponse; lib/session-cookie.ts); and the user view.
import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { App, StudioContext } from '../lib/context.ts';
import type { User } from '../db/users.ts';
import type { components } from '../spec/v1.generated.ts';
import { newSecret, sha256Hex, SESSION_PREFIX } from '../lib/secrets.ts';
import { cookieSecure, csrfTokenFor, sessionCookieName, sessionCookieOptions, signedInHintName } from '../lib/session-cookie.ts';
import { insertSession } from '../db/sessions.ts';

export type SessionDelivery = 'token' | 'cookie';

export function userView(u: User): components['schemas']['UserResponse'] {
  return { id: u.id, email: u.email, email_verified: u.emailVerified, role: u.role, created_at: u.createdAt };
}

/** What a login route needs to answer a session: the app, hapi's toolkit, and the studio whose cookie it is. */
export interface SessionAnswerContext {
  app: App;
  h: ResponseToolkit;
  studio?: StudioContext;
}

/** The session cookie of this site (the gateway's, or the studio's), its readable "signed in" hint, and their attributes. */
export function sessionCookie(app: App, studioSlug: string | undefined) {
  const secure = cookieSecure(app.config.publicUrl);
  const options = sessionCookieOptions(secure, app.config.sessionTtlSeconds);
  return { name: sessionCookieName(secure, studioSlug), options, hint: signedInHintName(secure, studioSlug), hintOptions: { ...options, isHttpOnly: false } };
}

/** Clears both cookies (sign-out). */
export function withoutSessionCookie(app: App, response: ResponseObject, studioSlug: string | undefined): ResponseObject {
  const c = sessionCookie(app, studioSlug);
  return response.unstate(c.name, c.options).unstate(c.hint, c.hintOptions);
}

/** `mgs_` + 256 random bits; only its SHA-256 is stored. */
async function newSession(app: App, userId: number): Promise<string> {
  const token = newSecret(SESSION_PREFIX);
  await insertSession(app.db, userId, sha256Hex(token), app.clock(), app.config.sessionTtlSeconds);
  return token;
}

/** Sets the session cookie on a response: the token goes only there, never in a body. */
export function withSessionCookie(ctx: SessionAnswerContext, response: ResponseObject, token: string, studioSlug = ctx.studio?.slug): ResponseObject {
  const c = sessionCookie(ctx.app, studioSlug);
  return response.state(c.name, token, c.options).state(c.hint, '1', c.hintOptions).header('Cache-Control', 'no-store');
}

/** A new session for the account, delivered as asked: in the answer (a bearer token) or as the cookie; `detail` when the sign-in did more. */
export async function startSession(ctx: SessionAnswerContext, userId: number, delivery: SessionDelivery = 'token', detail?: string): Promise<components['schemas']['SessionResponse'] | ResponseObject> {
  const { app } = ctx;
  const token = await newSession(app, userId);
  const said = detail === undefined ? {} : { detail };
  if (delivery === 'token') return { access_token: token, token_type: 'bearer', expires_in: app.config.sessionTtlSeconds, ...said };
  const body: components['schemas']['CookieSessionResponse'] = { token_type: 'cookie', csrf_token: csrfTokenFor(app.encryptionKey, token), expires_in: app.config.sessionTtlSeconds, ...said };
  return withSessionCookie(ctx, ctx.h.response(body), token);
}

/** A new cookie session, then a redirect to a page of this gateway (Google sign-in started from the dashboard). */
export async function startSessionAndRedirect(ctx: SessionAnswerContext, userId: number, location: string, studioSlug: string | undefined): Promise<ResponseObject> {
  const token = await newSession(ctx.app, userId);
  return withSessionCookie(ctx, ctx.h.redirect(location).code(302), token, studioSlug);
}
