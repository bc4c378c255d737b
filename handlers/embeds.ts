// Embed codes and agent embed codes (README "Embeds"): the owner's management routes,
// getModelNameForEmbedcode, and the input rules a code applies to a visitor's submit (locked and
// preset fields, allowed fields, prompt template), which plugins/credentials.ts (embedPolicyPlugin) runs before validation.
import type { Handler, OwnedCaller, ReplyOf } from './types.ts';
import type { App } from '../lib/context.ts';
import { EmbedRefusedError, ForbiddenError, NotFoundError, StudioRefusedError, ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import { normaliseOriginPattern, originAllowed, originHostProblem, requestOrigin } from '../lib/embed-origins.ts';
import { EMBED_JSON_MAX_BYTES, createEmbedCode as insertCode, findActiveEmbedCode, findEmbedCode, listEmbedCodes as listCodes, revokeEmbedCode as revokeCode, updateEmbedCode as updateCode } from '../db/embed-codes.ts';
import type { ActiveEmbedCode, EmbedCode, EmbedKind, EmbedPreset, EmbedSettings } from '../db/embed-codes.ts';
import { missingScopes, refuseSandboxKey, refuseStudioUser, studioForbiddenRefusal } from './guards.ts';
import { presentingKey } from './keys.ts';
import { EMBED_CODE_SCOPES } from '../lib/caller.ts';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** the embed code the request presented (plugins/credentials.ts), for its input rules */
    embedCode?: EmbedCode;
    /** the origin to name in Access-Control-Allow-Origin: the code allows it (plugins/credentials.ts) */
    embedCorsOrigin?: string;
    /** a visitor id issued on this request, answered in X-Embed-Visitor */
    embedVisitorIssued?: string;
  }
}

type EmbedView = ReplyOf<'getEmbedCode'>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function embedCodeView(c: EmbedCode): EmbedView {
  return {
    id: c.id, kind: c.kind, code: c.code, name: c.name, models: c.models, preset: c.preset, locked_inputs: c.lockedInputs,
    allowed_fields: c.allowedFields, allowed_origins: c.allowedOrigins, max_cost_per_run: c.maxCostPerRun, daily_cap: c.dailyCap,
    monthly_cap: c.monthlyCap, rate_limit_per_minute: c.rateLimitPerMinute, max_concurrent: c.maxConcurrent, team_id: c.teamId,
    created_at: new Date(c.createdAt).toISOString(), revoked_at: iso(c.revokedAt),
  };
}

/** A model's input schema (JSON Schema of its body), as the loaded spec has it dereferenced. */
export function inputSchemaOf(app: App, operationId: string): { properties: Record<string, unknown>; required: string[] } & Record<string, unknown> {
  const op = app.spec.operations.find((o) => o.operationId === operationId);
  const schema = (op?.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined)?.content?.['application/json']?.schema ?? {};
  return { ...schema, properties: (schema.properties ?? {}) as Record<string, unknown>, required: (schema.required ?? []) as string[] };
}

type SettingsBody = {
  name?: string; models?: string[]; preset?: EmbedPreset | null; locked_inputs?: Record<string, unknown>; allowed_fields?: string[] | null;
  allowed_origins?: string[]; max_cost_per_run?: number | null; daily_cap?: number | null; monthly_cap?: number | null;
  rate_limit_per_minute?: number | null; max_concurrent?: number | null;
};

/** The body's settings, checked against the spec's models (422 naming each problem). */
function settingsOf(app: App, kind: EmbedKind, body: SettingsBody, current?: EmbedCode): Partial<EmbedSettings> {
  const problems: ValidationItem[] = [];
  const models = body.models ?? current?.models ?? [];
  body.models?.forEach((m, i) => {
    if (!app.spec.models.has(m)) problems.push({ loc: ['body', 'models', i], msg: `unknown model endpoint "${m}"`, type: 'value_error' });
  });
  if (kind === 'embed' && body.models !== undefined && body.models.length !== 1) {
    problems.push({ loc: ['body', 'models'], msg: 'a model embed is bound to exactly one model endpoint; use kind agent_embed for several', type: 'value_error' });
  }
  const declared = new Set(models.filter((m) => app.spec.models.has(m)).flatMap((m) => Object.keys(inputSchemaOf(app, m).properties)));
  const checkFields = (fields: string[], loc: Array<string | number>) => {
    for (const f of fields) if (!declared.has(f)) problems.push({ loc: [...loc, f], msg: `no bound model declares the input field "${f}"`, type: 'value_error' });
  };
  if (body.locked_inputs) checkFields(Object.keys(body.locked_inputs), ['body', 'locked_inputs']);
  if (body.preset?.inputs) checkFields(Object.keys(body.preset.inputs), ['body', 'preset', 'inputs']);
  if (body.allowed_fields) checkFields(body.allowed_fields, ['body', 'allowed_fields']);
  // stored as JSON in TEXT columns (db/embed-codes.ts): the same bound on every engine
  const checkSize = (value: unknown, loc: Array<string | number>, what: string) => {
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > EMBED_JSON_MAX_BYTES) problems.push({ loc, msg: `${what} are ${bytes} bytes as JSON (UTF-8); at most ${EMBED_JSON_MAX_BYTES} are allowed`, type: 'value_error' });
  };
  if (body.locked_inputs) checkSize(body.locked_inputs, ['body', 'locked_inputs'], 'the locked inputs');
  // the template alone is at most 4000 characters, far below the bound: only inputs can overflow it
  if (body.preset) checkSize(body.preset, body.preset.inputs ? ['body', 'preset', 'inputs'] : ['body', 'preset'], 'the preset\'s inputs and prompt template');
  const origins: string[] = [];
  body.allowed_origins?.forEach((o, i) => {
    const n = normaliseOriginPattern(o);
    const tooLong = n === null ? null : originHostProblem(n);
    if (n === null) problems.push({ loc: ['body', 'allowed_origins', i], msg: 'an origin is host[:port] or *.domain[:port], optionally with http:// or https://', type: 'value_error' });
    else if (tooLong !== null) problems.push({ loc: ['body', 'allowed_origins', i], msg: `the origin "${o}" is too long: ${tooLong}`, type: 'value_error' });
    else if (!origins.includes(n)) origins.push(n);
  });
  if (problems.length) throw new ValidationFailedError(problems);
  const s: Partial<EmbedSettings> = {};
  if (body.name !== undefined) s.name = body.name;
  if (body.models !== undefined) s.models = body.models;
  if (body.preset !== undefined) s.preset = body.preset;
  if (body.locked_inputs !== undefined) s.lockedInputs = body.locked_inputs;
  if (body.allowed_fields !== undefined) s.allowedFields = body.allowed_fields;
  if (body.allowed_origins !== undefined) s.allowedOrigins = origins;
  if (body.max_cost_per_run !== undefined) s.maxCostPerRun = body.max_cost_per_run;
  if (body.daily_cap !== undefined) s.dailyCap = body.daily_cap;
  if (body.monthly_cap !== undefined) s.monthlyCap = body.monthly_cap;
  if (body.rate_limit_per_minute !== undefined) s.rateLimitPerMinute = body.rate_limit_per_minute;
  if (body.max_concurrent !== undefined) s.maxConcurrent = body.max_concurrent;
  return s;
}

/** Where a code can be made when the presenting credential may not make it. */
const HOW_ELSE = 'create or change the embed code from the dashboard (a signed-in session)';

/**
 * No credential widens itself (docs/api/rate-limits.md "Key restrictions"), nor through an embed code: a code's
 * visitors run models on the owner's wallet under the code's settings only, whatever credential
 * made it. So an API key with a restriction a code cannot carry (its own generation limits below
 * those of a key without any, a spend limit, an IP restriction, an expiry, scopes without
 * generation) may not create or change one: 403 naming them. A code's caps and limits are not
 * the key's (they count the code's runs, its rate limit each visitor's address), so they are no
 * substitute. An OAuth token must hold the scopes the code acts with. Sessions set anything.
 */
async function refuseNarrowerCreator(app: App, caller: OwnedCaller): Promise<void> {
  const missing = missingScopes(caller, EMBED_CODE_SCOPES);
  if (caller.via === 'oauth' && missing.length) {
    throw new ForbiddenError(`this OAuth token does not hold ${missing.join(', ')}, which an embed code's visitors act with; ${HOW_ELSE} or with a credential that holds them`);
  }
  if (caller.apiKeyId === null) return;
  const key = await presentingKey(app, caller);
  if (!key) return;
  const limits: string[] = [];
  // its own limit binds only where a key without one would get more (the default; 0 is none)
  const defaults = app.config.generateRateLimit;
  const below = (own: number | null, fallback: number) => own !== null && (fallback === 0 || own < fallback);
  if (below(key.rateLimitPerMinute, defaults.perKeyPerMinute)) limits.push(`its own rate_limit_per_minute (${key.rateLimitPerMinute})`);
  if (below(key.maxConcurrent, defaults.concurrentPerKey)) limits.push(`its own max_concurrent (${key.maxConcurrent})`);
  if (key.spendLimit !== null) limits.push(`a spend_limit (${key.spendLimit} per ${key.spendLimitPeriod ?? ''})`);
  if (key.ipWhitelist.length) limits.push('an IP restriction (ip_whitelist)');
  if (key.expiresAt !== null) limits.push(`an expiry (expires_at ${key.expiresAt})`);
  if (missing.length) limits.push(`scopes without ${missing.join(', ')}`);
  if (limits.length) {
    throw new ForbiddenError(`this API key has limits an embed code cannot carry: ${limits.join(', ')}; the code's visitors would run models outside them, so ${HOW_ELSE} or with a key without such limits`);
  }
}

/** POST /app/embed-codes */
export const createEmbedCode: Handler<'createEmbedCode'> = async ({ app, caller, body, h, studio }) => {
  refuseSandboxKey(caller, 'create embed codes (their runs are charged to the production wallet)');
  // a code runs its model outside any studio (personal or for a team)
  await refuseStudioUser(app, caller, studio, 'a studio\'s users cannot create embed codes');
  await refuseNarrowerCreator(app, caller);
  const s = settingsOf(app, body.kind, body as SettingsBody);
  const code = await insertCode(app.db, caller.owner, body.kind, {
    name: body.name!, models: body.models!, preset: null, lockedInputs: {}, allowedFields: null, allowedOrigins: [], maxCostPerRun: null,
    dailyCap: null, monthlyCap: null, rateLimitPerMinute: null, maxConcurrent: null, ...s,
  }, app.clock());
  return h.response(embedCodeView(code)).code(201);
};

/** GET /app/embed-codes */
export const listEmbedCodes: Handler<'listEmbedCodes'> = async ({ app, caller }) => (await listCodes(app.db, caller.owner)).map(embedCodeView);

/** GET /app/embed-codes/{embed_code_id} */
export const getEmbedCode: Handler<'getEmbedCode'> = async ({ app, caller, params }) => {
  const code = await findEmbedCode(app.db, caller.owner, params.embed_code_id);
  if (!code) throw new NotFoundError('embed code not found');
  return embedCodeView(code);
};

/** PATCH /app/embed-codes/{embed_code_id} */
export const updateEmbedCode: Handler<'updateEmbedCode'> = async ({ app, caller, params, body }) => {
  const current = await findEmbedCode(app.db, caller.owner, params.embed_code_id);
  if (!current || current.revokedAt !== null) throw new NotFoundError('embed code not found');
  refuseSandboxKey(caller, 'change embed codes');
  await refuseNarrowerCreator(app, caller);
  const updated = await updateCode(app.db, caller.owner, current.id, settingsOf(app, current.kind, body as SettingsBody, current), app.clock());
  if (!updated) throw new NotFoundError('embed code not found');
  return embedCodeView(updated);
};

/** DELETE /app/embed-codes/{embed_code_id} */
export const revokeEmbedCode: Handler<'revokeEmbedCode'> = async ({ app, caller, params }) => {
  if (!(await findEmbedCode(app.db, caller.owner, params.embed_code_id))) throw new NotFoundError('embed code not found');
  refuseSandboxKey(caller, 'revoke embed codes');
  if (!(await revokeCode(app.db, caller.owner, params.embed_code_id, app.clock()))) throw new NotFoundError('embed code not found');
  return embedCodeView((await findEmbedCode(app.db, caller.owner, params.embed_code_id))!);
};

/** Fields a code sets itself on this model: preset inputs and locked inputs, restricted to what the model declares. */
function ownerFields(code: EmbedCode, properties: Record<string, unknown>): Record<string, unknown> {
  const fixed = { ...(code.preset?.inputs ?? {}), ...code.lockedInputs };
  return Object.fromEntries(Object.entries(fixed).filter(([k]) => k in properties));
}

/** Whether the code sets this input field of the model itself (its preset or locked inputs): a visitor's value for it is replaced. */
export function codeSetsField(app: App, code: EmbedCode, operationId: string, field: string): boolean {
  return field in ownerFields(code, inputSchemaOf(app, operationId).properties);
}

/** The part of a model's input schema a visitor of this code may set. */
export function visitorSchema(app: App, code: EmbedCode, operationId: string): Record<string, unknown> {
  const schema = inputSchemaOf(app, operationId);
  const fixed = ownerFields(code, schema.properties);
  const editable = (k: string) => !(k in fixed) && (code.allowedFields === null || code.allowedFields.includes(k));
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => editable(k)));
  return { ...schema, properties, required: schema.required.filter((k) => editable(k)) };
}

/**
 * A visitor's submit, as the model receives it: fields outside `allowed_fields` are 422
 * `embed_field_not_allowed`; the preset's and the locked inputs are merged over the visitor's;
 * a prompt template wraps the visitor's prompt. Validation against the model's schema follows.
 */
export function embedInput(app: App, code: EmbedCode, operationId: string, visitor: Record<string, unknown>): Record<string, unknown> {
  const schema = inputSchemaOf(app, operationId);
  const fixed = ownerFields(code, schema.properties);
  if (code.allowedFields !== null) {
    const refused = Object.keys(visitor).filter((k) => !code.allowedFields!.includes(k) && !(k in fixed));
    if (refused.length) throw new EmbedRefusedError(422, 'embed_field_not_allowed', `this embed code does not let a visitor set ${refused.map((k) => `"${k}"`).join(', ')}; allowed: ${code.allowedFields.join(', ') || 'none'}`);
  }
  const input: Record<string, unknown> = { ...visitor, ...fixed };
  const template = code.preset?.prompt_template;
  if (template !== undefined && 'prompt' in schema.properties && !('prompt' in fixed)) {
    input.prompt = template.split('{prompt}').join(typeof visitor.prompt === 'string' ? visitor.prompt : '');
  }
  return input;
}

/** Whether the request's origin may use the code; throws 403 with the code's reason otherwise. Returns the origin to name in CORS headers. */
export function checkEmbedOrigin(code: Pick<EmbedCode, 'allowedOrigins'>, headers: Record<string, unknown>): string | null {
  const origin = requestOrigin(headers.origin, headers.referer);
  if (code.allowedOrigins.length === 0) return typeof headers.origin === 'string' ? headers.origin : null;
  if (origin === null) throw new EmbedRefusedError(403, 'embed_origin_missing', 'this embed code is restricted to its allowed origins, and the request names none (no Origin or Referer header)');
  if (!originAllowed(origin, code.allowedOrigins)) throw new EmbedRefusedError(403, 'embed_origin_not_allowed', `this embed code may not be used from ${origin}`);
  return typeof headers.origin === 'string' ? headers.origin : null;
}

/**
 * A personal code spends its account's wallet: refused while the account waits to be erased, as
 * its personal API keys are, on every route a code is presented on (a team's code is the team's).
 */
export function refuseOwnerDeletionPending(code: ActiveEmbedCode): void {
  if (code.ownerDeletionPending && code.teamId === null) {
    throw new EmbedRefusedError(401, 'embed_code_invalid', 'this code\'s account is scheduled for deletion: its owner can sign in and cancel the deletion to use the code again');
  }
}

/**
 * A personal code of a studio's user: the user runs models only within the studio, and a code
 * never acts in one, so outside any studio it is refused on every route a code is presented on
 * (plugins/credentials.ts, whitelabelPlugin), and when resolved.
 */
export function studioUserCodeRefusal(): StudioRefusedError {
  return new StudioRefusedError(403, 'studio_required', 'this embed code belongs to a studio\'s user, who runs models only within that studio: embed codes are not available to a studio\'s users');
}

/** GET /app/get_model_name_for_embedcode */
export const getModelNameForEmbedcode: Handler<'getModelNameForEmbedcode'> = async ({ app, query, request, studio }) => {
  const code = await findActiveEmbedCode(app.db, query.embed_code);
  if (!code) throw new NotFoundError('embed code not found');
  // refused as a submit with it would be, in the same order (the code's credential plugin, then
  // the studio context's check, plugins/credentials.ts): a page must not draw a model the code cannot run
  refuseOwnerDeletionPending(code);
  const corsOrigin = checkEmbedOrigin(code, request.headers);
  if (corsOrigin !== null) request.app.embedCorsOrigin = corsOrigin;
  // a code never acts in a studio's context, whoever's it is
  if (studio) throw studioForbiddenRefusal(studio);
  if (code.teamId === null && code.ownerStudioId !== null) throw studioUserCodeRefusal();
  const models = code.models.filter((m) => app.spec.models.has(m)).map((m) => {
    const info = app.spec.models.get(m)!;
    const op = app.spec.operations.find((o) => o.operationId === m);
    return { name: m, title: op?.summary ?? m, category: info.category, endpoint: info.path, input_schema: visitorSchema(app, code, m) };
  });
  const first = models[0];
  if (!first) throw new NotFoundError('embed code not found');
  return { embed_code: code.code, kind: code.kind, name: first.name, title: first.title, category: first.category, endpoint: first.endpoint, input_schema: first.input_schema, models };
};
