// oidc-provider's storage (its adapter interface) on the gateway database, so that every API
// process sees every token. Clients come from oauth_clients (read-only here); every other model
// (ClientCredentials tokens, and anything else the provider decides to keep) is one row of
// oauth_provider_records. An opaque token's id IS the token, so token rows are keyed by its
// SHA-256 and stored without `jti`: reading the table yields no usable token.
// Expiry uses the provider's own clock (Date.now), as its models do.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from './knex.ts';
import { num } from './knex.ts';
import { findLiveOAuthClient } from './oauth-clients.ts';
import { sha256Hex } from '../lib/secrets.ts';

interface RecordRow {
  kind: string;
  id: string;
  payload: string;
  expires_at: number | string | null;
  consumed_at: number | string | null;
}

const PURGE_EVERY_MS = 60_000;
/** Models whose id is a bearer credential: stored under its digest. */
const SECRET_IDS = new Set(['ClientCredentials', 'AccessToken', 'RefreshToken', 'AuthorizationCode']);

/** Client metadata oidc-provider validates and uses: client credentials only, secret compared as a digest. */
export function clientMetadata(c: { clientId: string; secretHash: string; name: string; allowedScopes: readonly string[] }): AdapterPayload {
  return {
    client_id: c.clientId,
    // the SHA-256 digest: Client.prototype.compareClientSecret is overridden to hash what the client sends
    client_secret: c.secretHash,
    client_name: c.name,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    // client_secret_basic and client_secret_post are interchangeable in oidc-provider's client auth
    token_endpoint_auth_method: 'client_secret_basic',
    scope: c.allowedScopes.join(' '),
  };
}

class ClientStore implements Adapter {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }
  async find(id: string): Promise<AdapterPayload | undefined> {
    const client = await findLiveOAuthClient(this.#db, id);
    return client ? clientMetadata(client) : undefined;
  }
  // Clients are created by createOAuthClient, never through the provider (no dynamic registration).
  async upsert(): Promise<void> {
    throw new Error('oauth clients are not written through oidc-provider');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

class RecordStore implements Adapter {
  readonly #db: Db;
  readonly #kind: string;
  readonly #state: { lastPurge: number };
  readonly #secretIds: boolean;
  constructor(db: Db, kind: string, state: { lastPurge: number }) {
    this.#db = db;
    this.#kind = kind;
    this.#state = state;
    this.#secretIds = SECRET_IDS.has(kind);
  }

  #key(id: string): string {
    return this.#secretIds ? sha256Hex(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const now = Date.now();
    const { jti: _jti, ...withoutJti } = payload;
    const stored = this.#secretIds ? withoutJti : payload;
    const row = {
      kind: this.#kind,
      id: this.#key(id),
      payload: JSON.stringify(stored),
      grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
      uid: typeof payload.uid === 'string' ? payload.uid : null,
      user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
      client_id: typeof payload.clientId === 'string' ? payload.clientId : null,
      expires_at: expiresIn ? now + expiresIn * 1000 : null,
      consumed_at: null,
    };
    await this.#db('oauth_provider_records').insert(row).onConflict(['kind', 'id']).merge();
    if (this.#state.lastPurge < now - PURGE_EVERY_MS) {
      this.#state.lastPurge = now;
      // Expired rows are dead weight; any process may remove them.
      await this.#db('oauth_provider_records').where('expires_at', '<', now).delete();
    }
  }

  async #findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
    const row = await this.#db<RecordRow>('oauth_provider_records').where({ kind: this.#kind, [column]: column === 'id' ? this.#key(value) : value }).first();
    if (!row) return undefined;
    if (row.expires_at !== null && num(row.expires_at) <= Date.now()) return undefined;
    const stored = JSON.parse(row.payload) as AdapterPayload;
    const payload = this.#secretIds && column === 'id' ? { ...stored, jti: value } : stored;
    return row.consumed_at === null ? payload : { ...payload, consumed: num(row.consumed_at) };
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('id', id);
  }
  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('uid', uid);
  }
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('user_code', userCode);
  }
  async consume(id: string): Promise<void> {
    await this.#db('oauth_provider_records').where({ kind: this.#kind, id: this.#key(id) }).update({ consumed_at: Math.floor(Date.now() / 1000) });
  }
  async destroy(id: string): Promise<void> {
    await this.#db('oauth_provider_records').where({ kind: this.#kind, id: this.#key(id) }).delete();
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#db('oauth_provider_records').where({ grant_id: grantId }).delete();
  }
}

/** The adapter factory handed to oidc-provider (`adapter` configuration). */
export function providerAdapter(db: Db): (name: string) => Adapter {
  const state = { lastPurge: 0 };
  return (name: string) => (name === 'Client' ? new ClientStore(db) : new RecordStore(db, name, state));
}
