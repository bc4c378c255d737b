// The site a browser page is on (getSiteInfo) and the session it holds (getSession): what the
// dashboard and a studio's storefront load before anything else. Public facts only: the studio's
// own name and branding, the registration policy, the sign-in methods and the checkout limits.
// A disabled studio's storefront still loads it: its users come to sign in, take their data and
// leave, so it offers no registration, no Google sign-in (refused there) and nothing for sale.
import type { Handler } from './types.ts';
import { findActiveStudio, findDisabledStudio } from '../db/studios.ts';
import { findUserById } from '../db/users.ts';
import { sessionExpiry } from '../db/sessions.ts';
import { NotFoundError, UnauthorizedError } from '../lib/errors.ts';
import { csrfTokenFor } from '../lib/session-cookie.ts';
import { periodLabel } from '../lib/subscription-plans.ts';
import { sessionCookie, userView } from './session.ts';

export const getSiteInfo: Handler<'getSiteInfo'> = async ({ app, studio }) => {
  const found = !studio ? undefined : studio.disabled ? await findDisabledStudio(app.db, studio.slug) : await findActiveStudio(app.db, { slug: studio.slug });
  // the context was resolved a moment ago; a studio disabled since (by its owner, or with its team) is gone
  if (studio && !found) throw new NotFoundError('this studio is no longer available');
  const disabled = found !== undefined && found.disabledAt !== null;
  const { stripe, google, checkout } = app.config;
  return {
    disabled,
    name: found ? found.name : 'mediagate',
    studio: found ? {
      slug: found.slug, name: found.name, logo_url: found.branding.logo_url ?? null, primary_color: found.branding.primary_color ?? null,
      accent_color: found.branding.accent_color ?? null, payer_mode: found.payerMode,
    } : null,
    registration: disabled ? 'closed' : app.config.registration,
    sign_in: { password: true, code: true, google: !disabled && google !== null },
    payments: {
      // a studio whose owner pays has nothing for its users to buy
      enabled: !disabled && stripe.secretKey !== undefined && (!found || found.payerMode === 'end_user_pays'),
      currency: stripe.currency, credits_per_unit: stripe.creditsPerUnit,
      presets: checkout.presets, min_amount: checkout.minAmount, max_amount: checkout.maxAmount,
      plans: disabled ? [] : [...app.config.subscriptions.plans.values()].map((p) => ({
        name: p.name, credits_per_period: p.credits, rollover_cap: p.rolloverCap, period: periodLabel(p.period), online: p.stripePrice !== undefined,
      })),
    },
  };
};

/** GET /auth/session: the presenting session, with the CSRF token of a cookie session (lib/session-cookie.ts). */
export const getSession: Handler<'getSession'> = async ({ app, caller, request, studio }) => {
  const user = await findUserById(app.db, caller.userId);
  const expiresAt = caller.sessionId === undefined ? undefined : await sessionExpiry(app.db, caller.sessionId);
  if (!user || expiresAt === undefined) throw new UnauthorizedError('invalid or expired session');
  let csrf: string | null = null;
  if (caller.sessionCookie) {
    const token = (request.state as Record<string, unknown>)[sessionCookie(app, studio?.slug).name];
    if (typeof token === 'string') csrf = csrfTokenFor(app.encryptionKey, token);
  }
  return {
    user: userView(user), expires_at: new Date(expiresAt).toISOString(), cookie: caller.sessionCookie === true, csrf_token: csrf,
    impersonated_by: caller.impersonator?.userId ?? null,
  };
};
