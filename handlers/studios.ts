// Whitelabel studios (README "Whitelabel studios"): the owner's management routes and the usage
// and revenue report. The studio context itself is plugins/credentials.ts (whitelabelPlugin); what it changes is in
// the handlers it reaches (catalog, models, generate, auth; the visibility check, studioHides,
// is handlers/admission.ts).
import type { Handler, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import { ConflictError, NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import { DuplicateError } from '../db/errors.ts';
import {
  createStudio as insertStudio, disableStudio as disableRow, findStudio, listStudios as listRows, studioUsage, updateStudio as updateRow,
  verifyStudioDomains as verifyRows,
} from '../db/studios.ts';
import type { PayerMode, Studio, StudioBranding, StudioSettings } from '../db/studios.ts';
import { refuseBeyondScopes, refuseSandboxKey, refuseStudioUser } from './guards.ts';
import { CHALLENGE_LABEL, LONGEST_VERIFIABLE_DOMAIN, challengeProblem, challengeRecord, dnsTxtLookup } from '../lib/domain-verification.ts';

type StudioView = ReplyOf<'getStudio'>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function studioView(s: Studio): StudioView {
  return {
    id: s.id, slug: s.slug, name: s.name, branding: s.branding, domains: s.domains,
    domain_verification: s.domainClaims.map((c) => ({
      hostname: c.hostname, status: c.serving ? 'verified' as const : 'pending' as const, record: challengeRecord(c.hostname, c.token),
      verified_at: c.serving ? iso(c.verifiedAt) : null, checked_at: iso(c.checkedAt), problem: c.serving ? null : c.checkError,
    })),
    allowed_models: s.allowedModels,
    markup_percent: s.markupPercent, model_prices: s.modelPrices, payer_mode: s.payerMode, team_id: s.teamId,
    created_at: new Date(s.createdAt).toISOString(), disabled_at: iso(s.disabledAt),
  };
}

/** A hostname: dot-separated labels of letters, digits and `-`, at least two labels, no scheme, port or path. */
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

type SettingsBody = {
  name?: string; branding?: StudioBranding; domains?: string[]; allowed_models?: string[];
  markup_percent?: number; model_prices?: Record<string, number>; payer_mode?: PayerMode;
};

/** The body's settings, checked (422 naming each problem): known models, hostnames, an https logo. */
function settingsOf(app: App, body: SettingsBody): Partial<StudioSettings> {
  const problems: ValidationItem[] = [];
  body.allowed_models?.forEach((m, i) => {
    if (!app.spec.models.has(m)) problems.push({ loc: ['body', 'allowed_models', i], msg: `unknown model endpoint "${m}"`, type: 'value_error' });
  });
  for (const m of Object.keys(body.model_prices ?? {})) {
    if (!app.spec.models.has(m)) problems.push({ loc: ['body', 'model_prices', m], msg: `unknown model endpoint "${m}"`, type: 'value_error' });
  }
  const domains: string[] = [];
  body.domains?.forEach((d, i) => {
    const host = d.trim().toLowerCase();
    if (!HOSTNAME.test(host)) problems.push({ loc: ['body', 'domains', i], msg: 'a domain is a hostname like studio.example.com (no scheme, port or path)', type: 'value_error' });
    else if (host.length > LONGEST_VERIFIABLE_DOMAIN) {
      problems.push({ loc: ['body', 'domains', i], msg: `at most ${LONGEST_VERIFIABLE_DOMAIN} characters: the TXT record that verifies it is named ${CHALLENGE_LABEL}.<domain>, and a DNS name has at most 253`, type: 'value_error' });
    } else if (!domains.includes(host)) domains.push(host);
  });
  const logo = body.branding?.logo_url;
  if (typeof logo === 'string') {
    let ok = false;
    try {
      ok = new URL(logo).protocol === 'https:';
    } catch { /* not a URL */ }
    if (!ok) problems.push({ loc: ['body', 'branding', 'logo_url'], msg: 'the logo is an https:// URL', type: 'value_error' });
  }
  if (problems.length) throw new ValidationFailedError(problems);
  const s: Partial<StudioSettings> = {};
  if (body.name !== undefined) s.name = body.name;
  if (body.branding !== undefined) s.branding = body.branding;
  if (body.domains !== undefined) s.domains = domains;
  if (body.allowed_models !== undefined) s.allowedModels = [...new Set(body.allowed_models)];
  if (body.markup_percent !== undefined) s.markupPercent = body.markup_percent;
  if (body.model_prices !== undefined) s.modelPrices = body.model_prices;
  if (body.payer_mode !== undefined) s.payerMode = body.payer_mode;
  return s;
}

function conflict(err: unknown): never {
  if (err instanceof DuplicateError) throw new ConflictError(err.message);
  throw err;
}

/** A path id that no studio can have (1e309 passes "integer" as Infinity) is 404 without a query. */
function studioId(id: number): number {
  if (!Number.isSafeInteger(id) || id <= 0) throw new NotFoundError('studio not found');
  return id;
}

/** A studio whose owner pays runs its users' models on the owner's wallet: setting one up, or changing one, takes the scope that spends it. */
const OWNER_PAYS_SCOPES = ['generate:write'] as const;
const OWNER_PAYS_SETUP = 'setting up or changing a studio whose owner pays (payer_mode owner_pays: its users\' runs are charged to this account)';

/** POST /app/studios */
export const createStudio: Handler<'createStudio'> = async ({ app, caller, body, h, studio: context }) => {
  refuseSandboxKey(caller, 'create studios (their runs are charged to production wallets)');
  // a studio of their own would run any model at the list price, outside their studio (personal or for a team)
  await refuseStudioUser(app, caller, context, 'a studio\'s users cannot create studios, whose users run models outside their own studio');
  const s = settingsOf(app, body as SettingsBody);
  if (body.payer_mode === 'owner_pays') refuseBeyondScopes(caller, OWNER_PAYS_SCOPES, OWNER_PAYS_SETUP);
  const studio = await insertStudio(app.db, caller.owner, body.slug, {
    name: body.name, branding: {}, domains: [], allowedModels: [], markupPercent: 0, modelPrices: {}, payerMode: body.payer_mode, ...s,
  }, app.clock()).catch(conflict);
  return h.response(studioView(studio)).code(201);
};

/** GET /app/studios */
export const listStudios: Handler<'listStudios'> = async ({ app, caller }) => (await listRows(app.db, caller.owner)).map(studioView);

/** GET /app/studios/{studio_id} */
export const getStudio: Handler<'getStudio'> = async ({ app, caller, params }) => {
  const studio = await findStudio(app.db, caller.owner, studioId(params.studio_id));
  if (!studio) throw new NotFoundError('studio not found');
  return studioView(studio);
};

/** PATCH /app/studios/{studio_id} */
export const updateStudio: Handler<'updateStudio'> = async ({ app, caller, params, body }) => {
  const current = await findStudio(app.db, caller.owner, studioId(params.studio_id));
  if (!current || current.disabledAt !== null) throw new NotFoundError('studio not found');
  refuseSandboxKey(caller, 'change studios');
  const s = settingsOf(app, body as SettingsBody);
  if ((s.payerMode ?? current.payerMode) === 'owner_pays') refuseBeyondScopes(caller, OWNER_PAYS_SCOPES, OWNER_PAYS_SETUP);
  const updated = await updateRow(app.db, caller.owner, current.id, s, app.clock()).catch(conflict);
  if (!updated) throw new NotFoundError('studio not found');
  return studioView(updated);
};

/** POST /app/studios/{studio_id}/verify-domains */
export const verifyStudioDomains: Handler<'verifyStudioDomains'> = async ({ app, caller, params }) => {
  const current = await findStudio(app.db, caller.owner, studioId(params.studio_id));
  if (!current || current.disabledAt !== null) throw new NotFoundError('studio not found');
  refuseSandboxKey(caller, 'change studios');
  const lookup = dnsTxtLookup(app.config.studioDnsServers);
  if (!(await verifyRows(app.db, caller.owner, current.id, (hostname, token) => challengeProblem(lookup, hostname, token), app.clock()))) {
    throw new NotFoundError('studio not found');
  }
  return studioView((await findStudio(app.db, caller.owner, current.id))!);
};

/** DELETE /app/studios/{studio_id} */
export const disableStudio: Handler<'disableStudio'> = async ({ app, caller, params }) => {
  if (!(await findStudio(app.db, caller.owner, studioId(params.studio_id)))) throw new NotFoundError('studio not found');
  refuseSandboxKey(caller, 'disable studios');
  if (!(await disableRow(app.db, caller.owner, studioId(params.studio_id), app.clock()))) throw new NotFoundError('studio not found');
  return studioView((await findStudio(app.db, caller.owner, studioId(params.studio_id)))!);
};

const DAY_MS = 86_400_000;

/** GET /app/studios/{studio_id}/usage */
export const getStudioUsage: Handler<'getStudioUsage'> = async ({ app, caller, params, query }) => {
  const studio = await findStudio(app.db, caller.owner, studioId(params.studio_id));
  if (!studio) throw new NotFoundError('studio not found');
  const to = query.to !== undefined ? Date.parse(query.to) : app.clock();
  const from = query.from !== undefined ? Date.parse(query.from) : to - 30 * DAY_MS;
  const problems: ValidationItem[] = [];
  if (!Number.isFinite(from)) problems.push({ loc: ['query', 'from'], msg: 'not a date-time', type: 'value_error' });
  if (!Number.isFinite(to)) problems.push({ loc: ['query', 'to'], msg: 'not a date-time', type: 'value_error' });
  if (!problems.length && from > to) problems.push({ loc: ['query', 'from'], msg: '`from` is after `to`', type: 'value_error' });
  if (problems.length) throw new ValidationFailedError(problems);
  const u = await studioUsage(app.db, studio.id, from, to);
  return {
    studio_id: studio.id, from: new Date(from).toISOString(), to: new Date(to).toISOString(), runs: u.runs, spend: u.spend, revenue: u.revenue,
    by_day: u.byDay, by_model: u.byModel,
  };
};
