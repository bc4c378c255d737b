// OAuth clients, the scope list and the two metadata documents (interface spec 5.2). The token
// endpoint itself is oidc-provider's (plugins/oauth.ts).
import crypto from 'node:crypto';
import type { Handler } from './types.ts';
import { ForbiddenError, NotFoundError } from '../lib/errors.ts';
import { CODE_SCOPES, declaredScopes, oauthTokenPath } from '../spec/scopes.ts';
import { deleteOAuthClient as deleteClientRow, insertOAuthClient, listUserOAuthClients } from '../db/oauth-clients.ts';
import type { OAuthClientRecord } from '../db/oauth-clients.ts';
import { newSecret, sha256Hex } from '../lib/secrets.ts';

export const CLIENT_ID_PREFIX = 'mgc_';
export const CLIENT_SECRET_PREFIX = 'mgcs_';

export function clientView(c: OAuthClientRecord) {
  return { id: String(c.id), client_id: c.clientId, name: c.name, allowed_scopes: CODE_SCOPES.filter((s) => c.allowedScopes.includes(s)), created_at: c.createdAt };
}

/** GET /oauth/scopes: the OAuth2 scheme's scopes as the served spec declares them, with their descriptions. */
export const listScopes: Handler<'listScopes'> = async ({ app }) => ({ scopes: declaredScopes(app.spec.document) });

/**
 * POST /oauth/clients. A session may grant any scope. A bearer token may only grant scopes it
 * holds itself, so a keys:manage token cannot mint a client with more power than its own.
 */
export const createOAuthClient: Handler<'createOAuthClient'> = async ({ app, caller, body }) => {
  const { scopes } = body;
  const beyond = scopes.filter((s) => !caller.scopes.includes(s));
  if (beyond.length) throw new ForbiddenError(`a client may not be granted scopes the caller does not hold: ${beyond.join(' ')}`);
  const secret = newSecret(CLIENT_SECRET_PREFIX);
  const record = await insertOAuthClient(app.db, {
    userId: caller.userId,
    clientId: CLIENT_ID_PREFIX + crypto.randomBytes(16).toString('base64url'),
    secretHash: sha256Hex(secret),
    name: body.name,
    // in the canonical order, so lists and tokens read the same way
    allowedScopes: CODE_SCOPES.filter((s) => scopes.includes(s)),
  }, app.clock());
  return { ...clientView(record), client_secret: secret };
};

/** GET /oauth/clients: the caller's live clients; the secret is never shown again. */
export const listOAuthClients: Handler<'listOAuthClients'> = async ({ app, caller }) => (await listUserOAuthClients(app.db, caller.userId)).map(clientView);

/** DELETE /oauth/clients/{id}: the client and every token it holds stop working at once. */
export const deleteOAuthClient: Handler<'deleteOAuthClient'> = async ({ app, caller, params }) => {
  const raw = String(params.id);
  const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || !(await deleteClientRow(app.db, caller.userId, id, app.clock()))) {
    throw new NotFoundError('OAuth client not found');
  }
  return { id: raw, deleted: true };
};

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export const getAuthorizationServerMetadata: Handler<'getAuthorizationServerMetadata'> = async ({ app }) => {
  const base = app.config.publicUrl;
  return {
    issuer: base,
    token_endpoint: `${base}${oauthTokenPath(app.spec.document)}`,
    grant_types_supported: ['client_credentials'],
    // no authorization endpoint: nothing is issued from a front channel
    response_types_supported: [],
    scopes_supported: [...CODE_SCOPES],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    service_documentation: `${base}/docs`,
  };
};

/** GET /.well-known/oauth-protected-resource (RFC 9728). */
export const getProtectedResourceMetadata: Handler<'getProtectedResourceMetadata'> = async ({ app }) => {
  const base = app.config.publicUrl;
  return {
    resource: base,
    authorization_servers: [base],
    scopes_supported: [...CODE_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${base}/docs`,
  };
};
