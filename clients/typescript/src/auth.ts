// How the client proves who it is, one kind per gateway credential:
// - an API key (`x-api-key`);
// - OAuth 2.0 client credentials: the client exchanges its id and secret at the gateway's token
//   endpoint (RFC 6749 4.4, HTTP Basic, form-encoded) and renews the token before it expires;
// - a bearer token it already holds (a session, or a token obtained elsewhere);
// - an embed code (`x-embed-code` / `x-agent-embed-code`, publishable, for web pages), with the
//   visitor id the gateway hands out on the first answer sent back on every later request.
import { errorFromResponse, MediagateError, refuseRedirect } from './errors.ts';

export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
  /** space-separated scopes to narrow the token to; absent: every scope of the client */
  scope?: string;
}

export type Credentials =
  | { apiKey: string }
  | { oauth: OAuthClientCredentials }
  | { bearerToken: string }
  | { embedCode: string; embedVisitor?: string };

export interface AuthContext {
  baseUrl: string;
  fetch: typeof fetch;
  now(): number;
}

/** Renew this long before the token's expiry, so a request never carries a token about to lapse. */
const RENEW_BEFORE_MS = 60_000;

export interface Authenticator {
  /** headers to add to a request to the gateway */
  headers(signal: AbortSignal | undefined): Promise<Record<string, string>>;
  /** what an answer teaches (an embed visitor id) */
  observe(response: Response): void;
  /** a 401 on a request that carried `headers()`: true when fresh credentials are worth one retry */
  refused(): boolean;
  /** the embed visitor id, once known */
  readonly visitor: string | undefined;
  /** an embed code: it may read its results but never open the event stream */
  readonly embed: boolean;
}

function basic(id: string, secret: string): string {
  // RFC 6749 2.3.1: id and secret are form-urlencoded before the Basic encoding
  const raw = `${encodeURIComponent(id)}:${encodeURIComponent(secret)}`;
  const bytes = new TextEncoder().encode(raw);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

class OAuthAuthenticator implements Authenticator {
  readonly visitor = undefined;
  readonly embed = false;
  private token: { value: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly creds: OAuthClientCredentials;
  private readonly ctx: AuthContext;

  constructor(creds: OAuthClientCredentials, ctx: AuthContext) {
    this.creds = creds;
    this.ctx = ctx;
  }

  async headers(signal: AbortSignal | undefined): Promise<Record<string, string>> {
    return { authorization: `Bearer ${await this.accessToken(signal)}` };
  }

  observe(): void {}

  refused(): boolean {
    // the token was revoked or expired early (its client deleted, the clocks apart): get another once
    const had = this.token !== undefined;
    this.token = undefined;
    return had;
  }

  private accessToken(signal: AbortSignal | undefined): Promise<string> {
    if (this.token && this.ctx.now() < this.token.renewAt) return Promise.resolve(this.token.value);
    // concurrent requests share one token request
    this.pending ??= this.fetchToken(signal).finally(() => { this.pending = undefined; });
    return this.pending;
  }

  private async fetchToken(signal: AbortSignal | undefined): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.creds.scope) form.set('scope', this.creds.scope);
    const started = this.ctx.now();
    const res = await this.ctx.fetch(`${this.ctx.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic(this.creds.clientId, this.creds.clientSecret), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      ...(signal ? { signal } : {}),
      redirect: 'manual',
    });
    await refuseRedirect(this.ctx.baseUrl, res);
    const text = await res.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* kept as text for the error */ }
    if (!res.ok) throw errorFromResponse(res.status, res.headers, body, this.ctx.now());
    const { access_token: value, expires_in: expiresIn } = body as { access_token?: unknown; expires_in?: unknown };
    if (typeof value !== 'string' || typeof expiresIn !== 'number') throw new MediagateError('the token endpoint answered without access_token and expires_in');
    const lifetime = expiresIn * 1000;
    // a short-lived token is renewed at 90% of its life rather than a minute before
    this.token = { value, renewAt: started + Math.max(lifetime - RENEW_BEFORE_MS, lifetime * 0.9) };
    return value;
  }
}

class HeaderAuthenticator implements Authenticator {
  visitor: string | undefined;
  readonly embed: boolean;
  private readonly fixed: Record<string, string>;

  constructor(fixed: Record<string, string>, embed: boolean, visitor?: string) {
    this.fixed = fixed;
    this.embed = embed;
    this.visitor = visitor;
  }

  async headers(): Promise<Record<string, string>> {
    return this.visitor ? { ...this.fixed, 'x-embed-visitor': this.visitor } : { ...this.fixed };
  }

  observe(response: Response): void {
    if (!this.embed) return;
    const visitor = response.headers.get('x-embed-visitor');
    if (visitor) this.visitor = visitor;
  }

  refused(): boolean {
    return false;
  }
}

export function authenticator(creds: Credentials | undefined, ctx: AuthContext): Authenticator | undefined {
  if (!creds) return undefined;
  if ('apiKey' in creds) return new HeaderAuthenticator({ 'x-api-key': creds.apiKey }, false);
  if ('bearerToken' in creds) return new HeaderAuthenticator({ authorization: `Bearer ${creds.bearerToken}` }, false);
  if ('embedCode' in creds) {
    // agent embed codes (aemb_) have their own header
    const header = creds.embedCode.startsWith('aemb_') ? 'x-agent-embed-code' : 'x-embed-code';
    return new HeaderAuthenticator({ [header]: creds.embedCode }, true, creds.embedVisitor);
  }
  return new OAuthAuthenticator(creds.oauth, ctx);
}
