// OAuth constants both sides name: the edge serves the token endpoint (plugins/oauth.ts, through
// oidc-provider) and the handlers advertise it in the metadata documents (handlers/oauth.ts).

/** the token endpoint's path (RFC 6749 section 3.2), relative to PUBLIC_URL */
export const TOKEN_PATH = '/oauth/token';
