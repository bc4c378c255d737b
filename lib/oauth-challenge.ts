// WWW-Authenticate challenges for bearer-protected routes: RFC 6750 section 3 with RFC 9728's
// resource_metadata pointer. Kept apart from plugins/oauth.ts so that spec-routes needs no
// authorization server to build them.
export function resourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl}/.well-known/oauth-protected-resource`;
}

/**
 * Every challenge names an `error`, as issue 5 asks: `invalid_request` when no credential was
 * sent at all. (RFC 6750 section 3.1 says such a request SHOULD get no error code; we follow the
 * owner's contract, and clients still learn where the resource metadata is.)
 */
export function bearerChallenge(publicUrl: string, opts: { error: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; scope?: string }): string {
  const params = [
    `error="${opts.error}"`,
    ...(opts.error === 'invalid_request' ? ['error_description="no credential was sent"'] : []),
    ...(opts.scope ? [`scope="${opts.scope}"`] : []),
    `resource_metadata="${resourceMetadataUrl(publicUrl)}"`,
  ];
  return `Bearer ${params.join(', ')}`;
}
