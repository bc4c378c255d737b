// Scopes are declared once: by the spec's OAuth2 security scheme. The code's `Scope` type is
// generated from it (spec/v1.generated.ts), the runtime list is read from it, and start-up refuses
// a spec that does not declare a scope the code names.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { SpecError } from './load.ts';
import type { DeclaredScope } from './v1.generated.ts';

export type Scope = DeclaredScope;

type Flows = Record<string, { scopes?: Record<string, string> } | undefined>;

/** The OAuth2 scheme's scopes with their descriptions, in the spec's order (every flow). */
export function declaredScopes(document: { components?: unknown }): Array<{ name: string; description: string }> {
  const components = (document.components ?? {}) as { securitySchemes?: Record<string, { flows?: Flows }> };
  const flows = components.securitySchemes?.OAuth2?.flows ?? {};
  const seen = new Map<string, string>();
  for (const flow of Object.values(flows)) {
    for (const [name, description] of Object.entries(flow?.scopes ?? {})) if (!seen.has(name)) seen.set(name, String(description));
  }
  return [...seen].map(([name, description]) => ({ name, description }));
}

export function scopeNames(document: { components?: unknown }): string[] {
  return declaredScopes(document).map((s) => s.name);
}

/** spec/v1 as committed: the spec the code (and its generated types) was built against. */
const CODE_SPEC = path.join(import.meta.dirname, 'v1', 'openapi.yaml');

/**
 * The scopes the code may name, in the spec's (canonical) order: those of the committed spec,
 * the same source as the `Scope` type. API keys and sessions hold all of them.
 */
export const CODE_SCOPES: readonly Scope[] = scopeNames(
  yaml.load(fs.readFileSync(CODE_SPEC, 'utf8'), { schema: yaml.CORE_SCHEMA }) as { components?: unknown },
) as Scope[];

/** Start-up: a spec (SPEC_DIR) that does not declare a scope the code names is refused, naming it. */
export function checkScopes(document: { components?: unknown }, named: readonly string[] = CODE_SCOPES): void {
  const declared = new Set(scopeNames(document));
  const missing = named.filter((s) => !declared.has(s));
  if (missing.length) {
    throw new SpecError(`the code names OAuth2 scope${missing.length > 1 ? 's' : ''} ${missing.map((s) => `"${s}"`).join(', ')} that the spec's OAuth2 security scheme does not declare`);
  }
}

/** The token endpoint's path: the OAuth2 scheme's client-credentials `tokenUrl` (plugins/oauth.ts serves it there). */
export function oauthTokenPath(document: { components?: unknown }): string {
  const components = (document.components ?? {}) as { securitySchemes?: Record<string, { flows?: { clientCredentials?: { tokenUrl?: unknown } } }> };
  const tokenUrl = components.securitySchemes?.OAuth2?.flows?.clientCredentials?.tokenUrl;
  if (typeof tokenUrl !== 'string' || !tokenUrl.startsWith('/')) throw new SpecError('the OAuth2 security scheme must declare a clientCredentials tokenUrl that is a path (e.g. /oauth/token)');
  return tokenUrl;
}
