// Helpers for the OAuth tests: clients created through the API, tokens from /oauth/token.
import type { TestGateway } from './gateway.ts';

export interface CreatedClient {
  id: string;
  client_id: string;
  client_secret: string;
  name: string;
  allowed_scopes: string[];
  created_at: string;
}

export async function createClient(gw: TestGateway, session: string, scopes: string[], name = 'machine'): Promise<CreatedClient> {
  const res = await gw.server.inject({ method: 'POST', url: '/oauth/clients', headers: { authorization: `Bearer ${session}` }, payload: { name, scopes } });
  if (res.statusCode !== 200) throw new Error(`createOAuthClient: ${res.statusCode} ${res.payload}`);
  return res.result as CreatedClient;
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** POST /oauth/token with a form body; returns status, parsed JSON body and headers. */
export async function tokenRequest(gw: TestGateway, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await gw.server.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) as Record<string, unknown>, headers: res.headers };
}

export async function tokenFor(gw: TestGateway, client: CreatedClient, scope?: string): Promise<string> {
  const res = await tokenRequest(gw, { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }, { authorization: basic(client.client_id, client.client_secret) });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}
