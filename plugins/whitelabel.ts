// Whitelabel studios (README "Whitelabel studios"): the studio context of a request. Not a
// credential: `x-whitelabel-studio: <slug>` (or a `Host` that is one of a studio's domains)
// selects a studio, and the request's own credential must belong to it.
//   onPreAuth   the header's studio (unknown or disabled: 404 `studio_not_found`), else the Host's
//   onPostAuth  a credential in a studio's context must be of a user of that studio, of its owner or
//               of a member of its owning team (403 `studio_forbidden`); a studio's user outside
//               any studio context is 403 `studio_required`
// The route bridge (plugins/spec-routes.ts) hands the context to the handler as `ctx.studio`;
// handlers apply it (catalog filter, studio price, source `studio`, studio users at /auth).
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import net from 'node:net';
import type { App, Caller, StudioContext } from '../lib/context.ts';
import { StudioRefusedError } from '../lib/errors.ts';
import { findActiveStudio, studioOfUser } from '../db/studios.ts';
import type { Studio } from '../db/studios.ts';
import { callerOf } from './spec-routes.ts';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** the studio whose context this request is in (plugins/whitelabel.ts) */
    studio?: StudioContext;
  }
}

export const STUDIO_HEADER = 'x-whitelabel-studio';

function contextOf(s: Studio, by: 'header' | 'domain'): StudioContext {
  return {
    by, name: s.name,
    id: s.id, slug: s.slug, userId: s.userId, teamId: s.teamId, allowedModels: s.allowedModels,
    payerMode: s.payerMode, markupPercent: s.markupPercent, modelPrices: s.modelPrices,
  };
}

/** The gateway's own hostname (PUBLIC_URL's), lower-cased; '' when it has none. */
function publicHostname(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Hostnames that never name a studio: the gateway's own, localhost, IP literals (so most requests cost no lookup). */
function ownHostname(own: string, hostname: string): boolean {
  if (hostname === '' || hostname === 'localhost' || net.isIP(hostname) !== 0) return true;
  return own !== '' && own === hostname;
}

function hostnameOf(request: Request): string {
  const host = request.headers.host;
  if (typeof host !== 'string') return '';
  return host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether the caller may act in the studio: its user belongs to it, owns it, or is in its owning team. */
async function mayUse(app: App, caller: Caller, studio: StudioContext, userStudio: number | null): Promise<boolean> {
  if (caller.embed) return false;
  if (userStudio === studio.id) return true;
  if (userStudio !== null) return false;
  if (studio.teamId === null) return caller.keyTeamId === undefined && caller.userId === studio.userId;
  if (caller.keyTeamId !== undefined) return caller.keyTeamId === studio.teamId;
  return (await app.teams?.membership(studio.teamId, caller.userId)) !== undefined;
}

export const whitelabelPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-whitelabel',
  dependencies: ['mediagate-errors'],
  register(server, { app }) {
    // parsed once, not per request
    const own = publicHostname(app.config.publicUrl);
    // The steps below are plain functions that return a promise only when they look something up:
    // most requests (no studio header, the gateway's own host, a credential that carries its
    // user's studio) pass without one.
    const bySlug = async (request: Request, h: ResponseToolkit, sent: string) => {
      const studio = /^[a-z0-9-]{1,40}$/.test(sent) ? await findActiveStudio(app.db, { slug: sent }) : undefined;
      if (!studio) throw new StudioRefusedError(404, 'studio_not_found', `no studio "${sent.slice(0, 40)}" on this gateway`);
      request.app.studio = contextOf(studio, 'header');
      return h.continue;
    };
    const byHostname = async (request: Request, h: ResponseToolkit, hostname: string) => {
      const studio = await findActiveStudio(app.db, { hostname });
      if (studio) request.app.studio = contextOf(studio, 'domain');
      return h.continue;
    };
    server.ext('onPreAuth', (request, h) => {
      if (request.method === 'options') return h.continue;
      const sent = request.headers[STUDIO_HEADER];
      if (typeof sent === 'string' && sent !== '') return bySlug(request, h, sent);
      const hostname = hostnameOf(request);
      if (ownHostname(own, hostname)) return h.continue;
      return byHostname(request, h, hostname);
    });

    const inStudio = (request: Request, h: ResponseToolkit, caller: Caller, studio: StudioContext | undefined, userStudio: number | null) => {
      if (!studio) {
        if (userStudio !== null) throw new StudioRefusedError(403, 'studio_required', `this account belongs to a studio: send ${STUDIO_HEADER} with its slug, or call through one of its domains`);
        return h.continue;
      }
      return mayUse(app, caller, studio, userStudio).then((may) => {
        if (!may) throw new StudioRefusedError(403, 'studio_forbidden', `this credential does not belong to the studio "${studio.slug}" (its users, its owner or its owning team's members)`);
        return h.continue;
      });
    };
    server.ext('onPostAuth', (request, h) => {
      const caller = callerOf(request);
      if (!caller) return h.continue;
      const studio = request.app.studio;
      // an embed code acts for its owner, who is never a studio's end user
      if (!studio && caller.embed) return h.continue;
      if (caller.studioId !== undefined) return inStudio(request, h, caller, studio, caller.studioId);
      return studioOfUser(app.db, caller.userId).then((userStudio) => inStudio(request, h, caller, studio, userStudio));
    });
  },
};
