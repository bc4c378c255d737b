// Embed codes (README "Embeds"): two credential plugins, one per kind, each implementing one of
// the spec's securitySchemes, and the policy plugin both depend on.
//   embedCodePlugin       EmbedCodeAuth      -> 'embed-code'        (x-embed-code: emb_…)
//   agentEmbedCodePlugin  AgentEmbedCodeAuth -> 'agent-embed-code'  (x-agent-embed-code: aemb_…)
// An operation accepts a code when its spec `security` lists the scheme (model endpoints,
// getPredictionResult and the OpenAI-compatible chat and images routes, whose body names the
// model); the policy plugin refuses the code on every other protected operation with 403
// `embed_operation_not_allowed`, checks the bound model, `webhook` and `team_id`, applies the
// code's input rules before validation (the images route applies them to the input it builds),
// answers CORS for the code's origins and issues visitor ids. Spend caps, the per-address rate limit and concurrency are checked at submit
// (handlers/generate.ts, handlers/policies.ts, db/embed-codes.ts).
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { App, Caller } from '../lib/context.ts';
import { EmbedRefusedError } from '../lib/errors.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { newVisitorId, VISITOR_PATTERN } from '../lib/embed-origins.ts';
import { EMBED_PREFIX, anyCodeAllowsOrigin, findActiveEmbedCode } from '../db/embed-codes.ts';
import type { EmbedCode, EmbedKind } from '../db/embed-codes.ts';
import { checkEmbedOrigin, embedInput } from '../handlers/embeds.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './cors.ts';
import { callerOf } from './spec-routes.ts';
import type { CredentialPlugin } from './spec-routes.ts';

/** The visitor id header: answered on a visitor's first call, sent back on the next ones. */
export const VISITOR_HEADER = 'X-Embed-Visitor';

const KINDS: ReadonlyArray<{ kind: EmbedKind; header: string; strategy: string }> = [
  { kind: 'embed', header: 'x-embed-code', strategy: 'embed-code' },
  { kind: 'agent_embed', header: 'x-agent-embed-code', strategy: 'agent-embed-code' },
];

/** What an embed code may do with OAuth-scoped routes: submit and poll. */
const EMBED_SCOPES = ['generate:write', 'generate:read'] as const;

const PREFLIGHT_MAX_AGE = 600;
const ALLOWED_HEADERS = CORS_ALLOWED_HEADERS;
const EXPOSED_HEADERS = CORS_EXPOSED_HEADERS;

function routeStrategies(route: Request['route'] | null | undefined): string[] | null {
  const auth = route?.settings.auth as { strategies?: string[] } | false | undefined;
  return auth ? auth.strategies ?? [] : null;
}

function embedKindOf(request: Request) {
  return KINDS.find((k) => typeof request.headers[k.header] === 'string' && request.headers[k.header] !== '');
}

function credentialPlugin(kind: EmbedKind, securityScheme: string, header: string, strategy: string) {
  return {
    name: `mediagate-${strategy}`,
    dependencies: ['mediagate-errors', 'mediagate-embed'],
    securityScheme,
    strategy,
    register(server: Server, { app }: { app: App }) {
      server.auth.scheme(strategy, () => ({
        async authenticate(request: Request, h: ResponseToolkit) {
          const value = request.headers[header];
          if (typeof value !== 'string' || value === '') return h.unauthenticated(Boom.unauthorized(null, securityScheme));
          const refused = () => new EmbedRefusedError(401, 'embed_code_invalid', `invalid or revoked ${kind === 'embed' ? 'embed' : 'agent embed'} code`);
          if (!value.startsWith(EMBED_PREFIX[kind])) throw refused();
          const code = await findActiveEmbedCode(app.db, value);
          if (!code || code.kind !== kind) throw refused();
          const corsOrigin = checkEmbedOrigin(code, request.headers);
          if (corsOrigin !== null) request.app.embedCorsOrigin = corsOrigin;
          const sent = request.headers[VISITOR_HEADER.toLowerCase()];
          let visitor: string;
          if (typeof sent === 'string' && sent !== '') {
            if (!VISITOR_PATTERN.test(sent)) throw new EmbedRefusedError(422, 'embed_visitor_invalid', `${VISITOR_HEADER} must be an id this gateway issued (send none to get one)`);
            visitor = sent;
          } else {
            visitor = newVisitorId();
            request.app.embedVisitorIssued = visitor;
          }
          request.app.embedCode = code;
          const caller: Caller = {
            userId: code.userId, role: 'user', via: kind, apiKeyId: null, isTest: false, scopes: EMBED_SCOPES,
            // a team's code acts for its team only, like a team's API key (lib/caller.ts)
            ...(code.teamId === null ? {} : { keyTeamId: code.teamId }),
            embed: {
              codeId: code.id, kind, models: code.models, maxCostPerRun: code.maxCostPerRun, dailyCap: code.dailyCap, monthlyCap: code.monthlyCap,
              rateLimitPerMinute: code.rateLimitPerMinute, maxConcurrent: code.maxConcurrent, visitorHash: sha256Hex(visitor),
            },
          };
          return h.authenticated({ credentials: { user: { caller }, scope: [...EMBED_SCOPES] } });
        },
      }));
      server.auth.strategy(strategy, strategy);
    },
  } satisfies CredentialPlugin;
}

export const embedCodePlugin = credentialPlugin('embed', 'EmbedCodeAuth', 'x-embed-code', 'embed-code');
export const agentEmbedCodePlugin = credentialPlugin('agent_embed', 'AgentEmbedCodeAuth', 'x-agent-embed-code', 'agent-embed-code');


/** Whether CORS_ORIGINS covers the origin (`*`, an exact origin, or `scheme://*.domain`), as hapi matches it. */
function operatorAllows(origins: readonly string[], origin: string): boolean {
  return origins.some((o) => {
    if (o === '*' || o === origin) return true;
    const star = o.indexOf('*');
    return star !== -1 && origin.startsWith(o.slice(0, star)) && origin.endsWith(o.slice(star + 1)) && origin.length > o.length;
  });
}

function setHeader(request: Request, name: string, value: string) {
  const response = request.response;
  if (!response) return;
  if (Boom.isBoom(response)) response.output.headers[name] = value;
  else response.header(name, value);
}

/** The OpenAI-compatible routes a code may call: their body's `model` is checked against the code's. */
const OPENAI_MODEL_ROUTES: ReadonlySet<string> = new Set(['createChatCompletion', 'createImage']);

/** Whether a code fixes or restricts fields of the model's input (its preset, locked inputs, allowed fields or prompt template). */
function presetsInput(app: App, code: EmbedCode, model: string): boolean {
  if (!app.spec.models.has(model)) return false;
  return code.allowedFields !== null || code.preset?.prompt_template !== undefined || Object.keys(embedInput(app, { ...code, allowedFields: null }, model, {})).length > 0;
}

export const embedPolicyPlugin: Plugin<{ app: App }> = {
  name: 'mediagate-embed',
  dependencies: ['mediagate-errors'],
  register(server, { app }) {
    // Preflights of a browser about to send a code: the code is not in a preflight, so it is
    // answered for an origin some active code of that kind allows, naming exactly that origin.
    // Not an async function: every other request passes with no promise of its own.
    const preflight = async (request: Request, h: ResponseToolkit) => {
      const origin = request.headers.origin;
      const method = request.headers['access-control-request-method'];
      const asked = String(request.headers['access-control-request-headers'] ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
      const kind = KINDS.find((k) => asked.includes(k.header));
      if (typeof origin !== 'string' || typeof method !== 'string' || !kind) return h.continue;
      // an origin CORS_ORIGINS allows gets hapi's own preflight (plugins/cors.ts), which allows the same headers
      if (operatorAllows(app.config.corsOrigins, origin)) return h.continue;
      const route = request.server.match(method.toLowerCase() as 'get', request.path);
      if (!routeStrategies(route)?.includes(kind.strategy)) return h.continue;
      const allowedLower = ALLOWED_HEADERS.map((x) => x.toLowerCase());
      const response = h.response().code(200).header('Vary', 'Origin');
      if (asked.every((x) => allowedLower.includes(x)) && await anyCodeAllowsOrigin(app.db, kind.kind, origin)) {
        response.header('Access-Control-Allow-Origin', origin)
          .header('Access-Control-Allow-Methods', method.toUpperCase())
          .header('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(','))
          .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
      }
      return response.takeover();
    };
    server.ext('onRequest', (request, h) => (request.method === 'options' ? preflight(request, h) : h.continue));

    // A code sent to an operation that does not list its scheme: 403, unless another credential came with it.
    server.ext('onPreAuth', (request, h) => {
      const kind = embedKindOf(request);
      if (!kind || request.headers['x-api-key'] !== undefined || request.headers.authorization !== undefined) return h.continue;
      const strategies = routeStrategies(request.route);
      if (strategies === null || strategies.length === 0 || strategies.includes(kind.strategy)) return h.continue;
      throw new EmbedRefusedError(403, 'embed_operation_not_allowed', `an ${kind.kind === 'embed' ? 'embed' : 'agent embed'} code may only submit to its model(s), read its own results and resolve itself; this operation needs an API key or a session`);
    });

    // The code's bound model(s), no webhook, no team_id, and the input rules (before validation).
    server.ext('onPostAuth', (request, h) => {
      const grant = callerOf(request)?.embed;
      const code = request.app.embedCode;
      if (!grant || !code) return h.continue;
      const operationId = request.route.settings.id ?? '';
      if (request.query.team_id !== undefined) throw new EmbedRefusedError(403, 'embed_team_not_allowed', 'an embed code acts for its owner only: send no team_id');
      if (OPENAI_MODEL_ROUTES.has(operationId)) {
        // the model is named in the body: the same binding as the model's own endpoint
        const payload = request.payload as { model?: unknown } | null;
        const model = typeof payload === 'object' && payload !== null && !Buffer.isBuffer(payload) ? payload.model : undefined;
        if (typeof model === 'string' && !grant.models.includes(model)) throw new EmbedRefusedError(403, 'embed_model_not_allowed', `this embed code is not bound to ${model}`);
        if (operationId === 'createChatCompletion' && typeof model === 'string' && presetsInput(app, code, model)) {
          throw new EmbedRefusedError(422, 'embed_field_not_allowed', `this embed code presets or restricts the input fields of ${model}, which a conversation cannot be held to: send its visitors' calls to POST /api/v1/${model}`);
        }
      } else if (app.spec.models.has(operationId)) {
        if (!grant.models.includes(operationId)) throw new EmbedRefusedError(403, 'embed_model_not_allowed', `this embed code is not bound to ${operationId}`);
        if (request.query.webhook !== undefined) throw new EmbedRefusedError(422, 'embed_webhook_not_allowed', 'an embed code cannot set a webhook: poll the result with the same code and visitor id');
        const payload = request.payload;
        if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
          (request as { payload: unknown }).payload = embedInput(app, code, operationId, payload as Record<string, unknown>);
        }
      }
      return h.continue;
    });

    // CORS for the code's origin, and the visitor id, on every answer to a code (errors included).
    server.ext('onPreResponse', (request, h) => {
      const origin = request.app.embedCorsOrigin;
      if (origin !== undefined) {
        setHeader(request, 'Access-Control-Allow-Origin', origin);
        setHeader(request, 'Access-Control-Expose-Headers', EXPOSED_HEADERS.join(','));
        setHeader(request, 'Vary', 'Origin');
      }
      if (request.app.embedVisitorIssued !== undefined) setHeader(request, VISITOR_HEADER, request.app.embedVisitorIssued);
      return h.continue;
    }, { after: ['mediagate-errors'] });
  },
};
