// Google sign-in as an OpenID Connect relying party, on openid-client (certified) and its
// engine oauth4webapi: discovery from GOOGLE_ISSUER, the authorization-code flow with state,
// nonce and PKCE (S256), and ID-token validation (signature against the issuer's JWKS, iss,
// aud, azp, exp, iat, nonce). Nothing here parses or checks a JWT by hand.
import * as oidc from 'openid-client';
import * as oauth from 'oauth4webapi';
import type { GoogleConfig } from '../config.ts';

/** The identity provider could not be reached or answered nonsense: 503. */
export class ProviderUnavailableError extends Error {}

/** The provider refused, or what it (or a client) presented did not validate: 401. */
export class SignInRefusedError extends Error {}

export interface ExternalIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

interface Provider {
  config: oidc.Configuration;
  insecure: boolean;
  jwksCache: oauth.JWKSCacheInput;
}

const TIMEOUT_SECONDS = 10;
const GOOGLE_ISSUER = 'https://accounts.google.com';
// Google documents both forms of its issuer in ID tokens (Android sign-in still issues the bare one).
const GOOGLE_BARE_ISSUER = 'accounts.google.com';

const providers = new WeakMap<GoogleConfig, Promise<Provider>>();

function isUnavailable(err: unknown): boolean {
  if (err instanceof DOMException) return err.name === 'TimeoutError' || err.name === 'AbortError';
  const code = (err as { code?: unknown })?.code;
  // fetch() failures are plain TypeErrors (cause: ECONNREFUSED, ENOTFOUND, ...); the libraries' argument errors carry a code.
  if (err instanceof TypeError && code === undefined) return true;
  // openid-client's wrapping of timeouts and of provider answers that are not OAuth at all (a 5xx page)
  return ['OAUTH_TIMEOUT', 'OAUTH_ABORT', oauth.RESPONSE_IS_NOT_CONFORM, oauth.RESPONSE_IS_NOT_JSON].includes(String(code));
}

/** Maps library errors onto the two outcomes the routes know; the message names no secret. */
function classify(err: unknown, what: string): Error {
  if (err instanceof ProviderUnavailableError || err instanceof SignInRefusedError) return err;
  if (isUnavailable(err)) return new ProviderUnavailableError(`${what}: the identity provider could not be reached`);
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
    const code = /^[a-z_]{1,64}$/.test(err.error) ? err.error : 'error';
    return new SignInRefusedError(`${what}: the identity provider answered ${code}`);
  }
  return new SignInRefusedError(`${what}: the identity provider's answer did not validate`);
}

async function discover(g: GoogleConfig): Promise<Provider> {
  const insecure = new URL(g.issuer).protocol === 'http:';
  const config = await oidc.discovery(new URL(g.issuer), g.clientId, undefined, oidc.ClientSecretPost(g.clientSecret), {
    timeout: TIMEOUT_SECONDS,
    // http:// issuers only exist in development and tests (a local provider standing in for Google).
    ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
  config.timeout = TIMEOUT_SECONDS;
  // Verify the ID token's signature on the code flow too, not only the TLS channel it came over.
  oidc.enableNonRepudiationChecks(config);
  return { config, insecure, jwksCache: {} };
}

/** Discovery runs once per configuration and process; a failed one is retried by the next request. */
function provider(g: GoogleConfig): Promise<Provider> {
  let p = providers.get(g);
  if (!p) {
    p = discover(g).catch((err: unknown) => {
      providers.delete(g);
      throw classify(err, 'Google sign-in is unavailable');
    });
    providers.set(g, p);
  }
  return p;
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export async function startAuthorization(g: GoogleConfig): Promise<AuthorizationRequest> {
  const { config } = await provider(g);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: g.redirectUrl,
    scope: 'openid email',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url, state, nonce, codeVerifier };
}

/** OpenID Connect Core 1.0 section 2: a subject "MUST NOT exceed 255 ASCII characters". */
const MAX_SUBJECT_LENGTH = 255;
/** RFC 5321 section 4.5.3.1: 64 for the local part, 255 for the domain. */
const MAX_EMAIL_LENGTH = 320;

function identityOf(claims: oauth.IDToken | undefined): ExternalIdentity {
  if (!claims) throw new SignInRefusedError('the identity provider returned no ID token');
  if (claims.sub.length > MAX_SUBJECT_LENGTH) throw new SignInRefusedError(`the identity provider's ID token names a subject longer than ${MAX_SUBJECT_LENGTH} characters`);
  return {
    subject: claims.sub,
    // an address no mailbox can have is no address: as if none were shared
    email: typeof claims.email === 'string' && claims.email.length <= MAX_EMAIL_LENGTH ? claims.email : undefined,
    emailVerified: claims.email_verified === true,
  };
}

/** Redeems the authorization code (with the PKCE verifier) and validates the ID token against state and nonce. */
export async function completeAuthorization(
  g: GoogleConfig, callbackQuery: URLSearchParams, expected: { state: string; nonce: string; codeVerifier: string },
): Promise<ExternalIdentity> {
  const { config } = await provider(g);
  const currentUrl = new URL(g.redirectUrl);
  currentUrl.search = callbackQuery.toString();
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: expected.codeVerifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
    });
    return identityOf(tokens.claims());
  } catch (err) {
    throw classify(err, 'Google sign-in failed');
  }
}

async function validateIdToken(p: Provider, as: oauth.AuthorizationServer, clientId: string, idToken: string, nonce: string | undefined) {
  // oauth4webapi validates ID tokens as part of a token response; this one arrives from an app,
  // so it is wrapped as one (as openid-client's implicitAuthentication does).
  const response = new Response(JSON.stringify({ access_token: 'unused', token_type: 'bearer', id_token: idToken }), {
    headers: { 'content-type': 'application/json' },
  });
  const result = await oauth.processAuthorizationCodeResponse(as, { client_id: clientId }, response, {
    requireIdToken: true,
    ...(nonce === undefined ? {} : { expectedNonce: nonce }),
  });
  await oauth.validateApplicationLevelSignature(as, response, {
    [oauth.allowInsecureRequests]: p.insecure,
    [oauth.jwksCache]: p.jwksCache,
    signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
  });
  return oauth.getValidatedIdTokenClaims(result);
}

/** The nonce the app chose, if any. The gateway issued none for this flow, so there is nothing to compare it with. */
function nonceOf(idToken: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { nonce?: unknown };
    return typeof payload.nonce === 'string' ? payload.nonce : undefined;
  } catch {
    return undefined;
  }
}

/** Validates an ID token obtained by a mobile app: signature (issuer's JWKS), iss, aud = GOOGLE_CLIENT_ID, exp, iat. */
export async function verifyIdToken(g: GoogleConfig, idToken: string): Promise<ExternalIdentity> {
  const p = await provider(g);
  const as = p.config.serverMetadata() as oauth.AuthorizationServer;
  const nonce = nonceOf(idToken);
  try {
    try {
      return identityOf(await validateIdToken(p, as, g.clientId, idToken, nonce));
    } catch (err) {
      const claim = (err as { cause?: { claim?: unknown } })?.cause?.claim;
      if (as.issuer !== GOOGLE_ISSUER || claim !== 'iss') throw err;
      return identityOf(await validateIdToken(p, { ...as, issuer: GOOGLE_BARE_ISSUER }, g.clientId, idToken, nonce));
    }
  } catch (err) {
    throw classify(err, 'the Google ID token was refused');
  }
}
