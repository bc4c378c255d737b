// Every operation of the loaded spec against every kind of credential: no credential, an API key,
// a session, and an OAuth token holding each single scope. The expectation comes from the
// operation's own `security` (and `x-required-role`); the fixed lists below pin what that
// security must be, so a route added later without security (or with the wrong scope) fails here.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { createClient, tokenFor } from '../helpers/oauth.ts';

const SCOPES = ['generate:write', 'generate:read', 'files:write', 'account:read', 'keys:manage'] as const;

/** Operations anyone may call. */
const PUBLIC = new Set([
  // the site's name and branding for the sign-in page (issue 39)
  'getSiteInfo',
  'getHealth', 'listScopes', 'issueToken', 'getAuthorizationServerMetadata', 'getProtectedResourceMetadata',
  'register', 'login', 'verifyOtp', 'requestOtp', 'loginOtp', 'forgotPassword', 'resetPassword', 'supportLogin',
  'supportResetPassword', 'getGoogleUrl', 'googleCallback', 'googleHandoff', 'googleMobileLogin', 'cliLogin',
  'getLoraData', 'getLoraModelsData', 'getTaskData', 'getHomepageModels', 'getModelNameForEmbedcode', 'listModels',
  // the OpenAI-compatible models list, public like listModels (issue 37)
  'listOpenAIModels', 'getOpenAIModel',
  // a provider's callback: no credential, its signature and an unguessable path (README "Providers")
  'receiveUpstreamWebhook',
  // Stripe's events: no credential, the Stripe-Signature header (README "Payments (Stripe)")
  'receiveStripeWebhook',
]);

/** The scope each non-model, non-admin protected operation needs (issue 5's mapping); model endpoints need generate:write. */
const SCOPE_OF: Readonly<Record<string, string | null>> = {
  // issue 39: the dashboard's session, key rotation, buying credit
  getSession: null,
  rotateApiKey: 'keys:manage',
  rotateTeamApiKey: 'keys:manage',
  createCheckoutSession: null,
  createBillingPortalSession: null,
  listPurchases: 'account:read',
  listInvoices: 'account:read',
  getPredictionResult: 'generate:read',
  streamPrediction: 'generate:read',
  getPredictionResponse: 'generate:read',
  getRunHistory: 'generate:read',
  searchRunHistory: 'generate:read',
  getGallery: 'generate:read',
  cancelPrediction: 'generate:write',
  redeliverWebhook: 'generate:write',
  updateReviewStatus: 'generate:write',
  bulkUpdateReviewStatus: 'generate:write',
  bulkDeleteUsageLogs: 'generate:write',
  getFileUploadUrl: 'files:write',
  createMediaAsset: 'files:write',
  deleteMediaAsset: 'files:write',
  getBalance: 'account:read',
  getUserDetails: 'account:read',
  listCreditTransactions: 'account:read',
  getUsage: 'account:read',
  getAlertSettings: 'account:read',
  listAlerts: 'account:read',
  // alerts and budgets are account administration, like keys and teams
  updateAlertSettings: 'keys:manage',
  // a test alert is a request to a URL the caller names, like a webhook test event
  sendAlertTest: 'keys:manage',
  myModelDiscounts: 'account:read',
  getMySubscription: 'account:read',
  listMediaAssets: 'account:read',
  exportAccount: 'account:read',
  // what staff did on the account: read like the export
  listStaffAccess: 'account:read',
  // issue 10: the quote shows the paying wallet's balance, so it needs a caller
  calculateDynamicCost: 'account:read',
  // an inline chat call spends credit like a model submit (issue 37)
  createChatCompletion: 'generate:write',
  createImage: 'generate:write',
  // issue 10: registering a LoRA is hosting a file reference; listing one's own is a read of one's resources
  createLora: 'files:write',
  listOwnLoras: 'generate:read',
  createApiKey: 'keys:manage',
  generateApiKey: 'keys:manage',
  getUserKeys: 'keys:manage',
  deleteApiKey: 'keys:manage',
  updateApiKey: 'keys:manage',
  getWebhookSecret: 'keys:manage',
  rotateWebhookSecret: 'keys:manage',
  sendWebhookTest: 'keys:manage',
  listWebhookDeliveries: 'generate:read',
  redeliverDeadWebhooks: 'generate:write',
  createOAuthClient: 'keys:manage',
  listOAuthClients: 'keys:manage',
  deleteOAuthClient: 'keys:manage',
  // teams (issue 8): reads with account:read, changes with keys:manage
  listTeams: 'account:read',
  getTeam: 'account:read',
  listTeamMembers: 'account:read',
  listTeamInvites: 'account:read',
  createTeam: 'keys:manage',
  renameTeam: 'keys:manage',
  deleteTeam: 'keys:manage',
  changeTeamMemberRole: 'keys:manage',
  removeTeamMember: 'keys:manage',
  leaveTeam: 'keys:manage',
  createTeamInvite: 'keys:manage',
  revokeTeamInvite: 'keys:manage',
  // a team's API keys are account administration, like personal keys
  createTeamApiKey: 'keys:manage',
  listTeamApiKeys: 'keys:manage',
  revokeTeamApiKey: 'keys:manage',
  updateTeamApiKey: 'keys:manage',
  // embed codes (issue 9) are account administration too
  createEmbedCode: 'keys:manage',
  listEmbedCodes: 'keys:manage',
  getEmbedCode: 'keys:manage',
  updateEmbedCode: 'keys:manage',
  revokeEmbedCode: 'keys:manage',
  // whitelabel studios (issue 9): administration, and the owner's usage report is a read
  createStudio: 'keys:manage',
  listStudios: 'keys:manage',
  getStudio: 'keys:manage',
  updateStudio: 'keys:manage',
  verifyStudioDomains: 'keys:manage',
  disableStudio: 'keys:manage',
  getStudioUsage: 'account:read',
  // a session or an API key of the invited account: a machine client has no mailbox
  acceptTeamInvite: null,
  // session only: no scope grants these
  logout: null,
  requestAccountDeletion: null,
  cancelAccountDeletion: null,
};

/** Operations a sandbox key is refused (403) although API keys are accepted: a sandbox key does only sandbox things (issue 16). */
const SANDBOX_REFUSED = new Set(['createApiKey', 'generateApiKey', 'updateAlertSettings', 'sendAlertTest']);

/** Protected operations that refuse API keys (the rest accept one). */
const NO_API_KEY = new Set(['createOAuthClient', 'listOAuthClients', 'deleteOAuthClient', 'logout', 'requestAccountDeletion', 'cancelAccountDeletion',
  'getSession', 'createCheckoutSession', 'createBillingPortalSession', 'listInvoices']);

/**
 * Protected operations an embed code may call (issue 9): besides every model endpoint, polling its
 * own results, and the OpenAI-compatible routes for its bound models (issue 37; the model is in the body).
 */
const EMBEDDABLE = new Set(['getPredictionResult', 'createChatCompletion', 'createImage']);
/** The model the matrix's model embed code is bound to (the agent embed code is bound to every model). */
const EMBED_MODEL = 'canvas-v1-fast-text-to-image';

type Security = Array<Record<string, string[]>>;
/**
 * A whitelabel studio's context (README "Whitelabel studios"): `member`, the studio's own user with
 * its header (as any production key); `outsider`, another account's key with the header
 * (403 studio_forbidden); `missing`, the studio's user without it (403 studio_required).
 */
type StudioCase = 'member' | 'outsider' | 'missing';
type Cred = { name: string; headers: Record<string, string>; scheme: 'none' | 'ApiKeyAuth' | 'SessionAuth' | 'OAuth2' | 'EmbedCodeAuth' | 'AgentEmbedCodeAuth'; scope?: string; sandbox?: boolean; studio?: StudioCase };

let gw: TestGateway;
let acct: Account;
const tokens = new Map<string, string>();
let embedCode: string;
let agentEmbedCode: string;
let studioSlug: string;
let studioUserKey: string;

test.before(async () => {
  gw = await startGateway({ queue: 'memory' });
  acct = await newAccount(gw);
  for (const scope of SCOPES) tokens.set(scope, await tokenFor(gw, await createClient(gw, acct.session, [scope], scope)));
  const create = async (body: Record<string, unknown>) => (JSON.parse((await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${acct.session}` }, payload: body })).payload) as { code: string }).code;
  embedCode = await create({ kind: 'embed', name: 'matrix', models: [EMBED_MODEL] });
  agentEmbedCode = await create({ kind: 'agent_embed', name: 'matrix', models: [...gw.app.spec.models.keys()] });
  // a studio of another account, and one end user of it with a production key
  const partner = await newAccount(gw);
  studioSlug = `matrix-${Date.now().toString(36)}`;
  const studio = await gw.server.inject({ method: 'POST', url: '/app/studios', headers: { authorization: `Bearer ${partner.session}` }, payload: { slug: studioSlug, name: 'matrix', allowed_models: [EMBED_MODEL], payer_mode: 'end_user_pays' } });
  if (studio.statusCode !== 201) throw new Error(`createStudio: ${studio.payload}`);
  const inStudio = { 'x-whitelabel-studio': studioSlug };
  const email = `matrix-${Date.now().toString(36)}@example.com`;
  await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio, payload: { email, password: 'correct horse battery' } });
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio, payload: { email, password: 'correct horse battery' } });
  const session = (JSON.parse(login.payload) as { access_token: string }).access_token;
  studioUserKey = (JSON.parse((await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}`, ...inStudio }, payload: { name: 'live', is_test: false } })).payload) as { key: string }).key;
});
test.after.always(async () => {
  await gw?.stop();
});

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD /path` of every operation the spec document declares, read from the raw document. */
function declaredRoutes(): string[] {
  const routes: string[] = [];
  for (const [route, item] of Object.entries(gw.app.spec.document.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) if (METHODS.includes(method)) routes.push(`${method.toUpperCase()} ${route}`);
  }
  return routes.sort();
}

const securityOf = (op: Operation) => (op.security as Security | undefined) ?? [];
const ext = (op: Operation, name: string) => (op as unknown as Record<string, unknown>)[name];

function expected(op: Operation, cred: Cred): 'allowed' | 401 | 403 {
  const security = securityOf(op);
  if (security.length === 0) return 'allowed';
  if (cred.scheme === 'none') return 401;
  if (cred.scheme === 'EmbedCodeAuth' || cred.scheme === 'AgentEmbedCodeAuth') {
    // not listed: 403 embed_operation_not_allowed; a model the code is not bound to: 403 embed_model_not_allowed
    if (!security.some((r) => cred.scheme in r)) return 403;
    if (cred.scheme === 'EmbedCodeAuth' && ext(op, 'x-model') && op.operationId !== EMBED_MODEL) return 403;
    return 'allowed';
  }
  const requirement = security.find((r) => cred.scheme in r);
  // a valid key or token on a route a login session may call but it may not: 403 session_required
  if (!requirement) return security.some((r) => 'SessionAuth' in r) && (cred.scheme === 'ApiKeyAuth' || cred.scheme === 'OAuth2') ? 403 : 401;
  // the credential is accepted, then the studio context refuses it (studio_forbidden, studio_required)
  if (cred.studio === 'outsider' || cred.studio === 'missing') return 403;
  // a role route (x-required-role) refuses every credential of a plain user: keys and tokens
  // outright (session_required), the session for its role (role_required)
  if (ext(op, 'x-required-role') !== undefined) return 403;
  const needs = requirement[cred.scheme] ?? [];
  if (cred.scheme === 'OAuth2' && !needs.every((s) => s === cred.scope)) return 403;
  // the matrix's bodies are '{}': createApiKey then asks for a production key
  if (cred.sandbox && SANDBOX_REFUSED.has(op.operationId!)) return 403;
  return 'allowed';
}

test('the spec declares the issue\'s credentials and scopes for every operation', (t) => {
  // The fixed lists name only operations the spec declares, so none of them goes stale.
  const ids = new Set(gw.app.spec.operations.map((op) => op.operationId));
  const listed = [...PUBLIC, ...Object.keys(SCOPE_OF), ...SANDBOX_REFUSED, ...NO_API_KEY, ...EMBEDDABLE];
  t.deepEqual(listed.filter((id) => !ids.has(id)), [], 'operations named by this test that the spec does not declare');
  for (const op of gw.app.spec.operations) {
    const id = op.operationId!;
    const security = securityOf(op);
    if (PUBLIC.has(id)) {
      t.deepEqual(security, [], `${id} is public`);
      continue;
    }
    t.true(security.length > 0, `${id} has no security: every route but the public list needs a credential`);
    const schemes = security.flatMap((r) => Object.keys(r)).sort();
    if (ext(op, 'x-required-role') !== undefined) {
      // Keys and tokens are declared so that they get a clear 403 session_required instead of a
      // 401: only a session with the role gets in, and no scope is asked (none grants a role).
      t.deepEqual(schemes, ['ApiKeyAuth', 'OAuth2', 'SessionAuth'], `${id}: admin routes declare a session, a key and a token`);
      t.deepEqual(security.find((r) => 'OAuth2' in r)?.OAuth2, [], `${id}: no scope grants a role`);
      continue;
    }
    const scope = ext(op, 'x-model') ? 'generate:write' : SCOPE_OF[id];
    t.not(scope, undefined, `${id}: not in the scope mapping of this test`);
    const embeddable = ext(op, 'x-model') !== undefined || EMBEDDABLE.has(id);
    const want = [...(NO_API_KEY.has(id) ? [] : ['ApiKeyAuth']), ...(scope ? ['OAuth2'] : []), 'SessionAuth', ...(embeddable ? ['EmbedCodeAuth', 'AgentEmbedCodeAuth'] : [])].sort();
    t.deepEqual(schemes, want, `${id}: credentials`);
    if (scope) t.deepEqual(security.find((r) => 'OAuth2' in r)?.OAuth2, [scope], `${id}: OAuth2 scope`);
  }
});

test('every operation answers 401, 403 or lets the caller through exactly as its security declares (auth before validation)', async (t) => {
  const creds: Cred[] = [
    { name: 'no credential', headers: {}, scheme: 'none' },
    { name: 'sandbox API key', headers: { 'x-api-key': acct.testKey }, scheme: 'ApiKeyAuth', sandbox: true },
    { name: 'production API key', headers: { 'x-api-key': acct.liveKey }, scheme: 'ApiKeyAuth' },
    ...SCOPES.map((scope): Cred => ({ name: `token(${scope})`, headers: { authorization: `Bearer ${tokens.get(scope)}` }, scheme: 'OAuth2', scope })),
    { name: 'embed code', headers: { 'x-embed-code': embedCode }, scheme: 'EmbedCodeAuth' },
    { name: 'agent embed code', headers: { 'x-agent-embed-code': agentEmbedCode }, scheme: 'AgentEmbedCodeAuth' },
    { name: 'studio user\'s key in its studio', headers: { 'x-api-key': studioUserKey, 'x-whitelabel-studio': studioSlug }, scheme: 'ApiKeyAuth', studio: 'member' },
    { name: 'another account\'s key in the studio', headers: { 'x-api-key': acct.liveKey, 'x-whitelabel-studio': studioSlug }, scheme: 'ApiKeyAuth', studio: 'outsider' },
    { name: 'studio user\'s key outside its studio', headers: { 'x-api-key': studioUserKey }, scheme: 'ApiKeyAuth', studio: 'missing' },
    // last: logout ends the session it is called with
    { name: 'session', headers: { authorization: `Bearer ${acct.session}` }, scheme: 'SessionAuth' },
  ];
  const operations = [...gw.app.spec.operations].sort((a, b) => Number(a.operationId === 'logout') - Number(b.operationId === 'logout'));
  const walked = new Map<string, string[]>(creds.map((c) => [c.name, []]));
  for (const cred of creds) {
    for (const op of operations) {
      walked.get(cred.name)!.push(`${op.method.toUpperCase()} ${op.path}`);
      // Dummy path values: an id nobody owns, so nothing real is touched.
      const url = op.path.replace(/\{[^}]+\}/g, '999999');
      const hasBody = !['get', 'head', 'delete'].includes(op.method);
      const res = await gw.server.inject({
        method: op.method.toUpperCase(),
        url,
        headers: { ...cred.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        ...(hasBody ? { payload: '{}' } : {}),
      });
      const want = expected(op, cred);
      const got = res.statusCode === 401 || res.statusCode === 403 ? res.statusCode : 'allowed';
      t.is(got, want, `${op.operationId} (${op.method.toUpperCase()} ${op.path}) with ${cred.name}: ${res.statusCode} ${res.payload.slice(0, 200)}`);
    }
  }
  // Exactly every route of the document, once, with each credential: none skipped, none twice.
  const routes = declaredRoutes();
  t.true(routes.length > 0);
  for (const cred of creds) t.deepEqual(walked.get(cred.name)!.sort(), routes, `routes walked with ${cred.name}`);
});

test('an admin route refuses a normal user\'s session and key with 403, and a protected route checks credentials before the body', async (t) => {
  const admin = await gw.server.inject({ method: 'POST', url: '/auth/admin_topup', headers: { 'x-api-key': acct.liveKey }, payload: {} });
  t.is(admin.statusCode, 403);
  t.like(admin.result, { code: 'session_required' });
  const bySession = await gw.server.inject({ method: 'POST', url: '/auth/admin_topup', headers: { authorization: `Bearer ${acct.session}` }, payload: {} });
  t.is(bySession.statusCode, 403);
  t.like(bySession.result, { code: 'role_required' });
  // An invalid body would be 422; without a credential hapi's auth answers first.
  const anon = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', payload: { nonsense: true } });
  t.is(anon.statusCode, 401);
  const wrongScope = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { authorization: `Bearer ${tokens.get('generate:read')}` }, payload: { nonsense: true } });
  t.is(wrongScope.statusCode, 403);
  const rightScope = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { authorization: `Bearer ${tokens.get('generate:write')}` }, payload: { nonsense: true } });
  t.is(rightScope.statusCode, 422);
});
