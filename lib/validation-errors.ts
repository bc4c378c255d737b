// ajv errors -> FastAPI's HTTPValidationError: {"detail": [{"loc": [...], "msg": "...", "type": "..."}]}.
// Pure, so its wording is unit-tested.

export type { ValidationItem } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';

export interface AjvLikeError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown> | unknown[];
  message?: string;
}

const SECTION: Record<string, string> = { requestBody: 'body', query: 'query', path: 'path', header: 'header', cookie: 'cookie' };

function locOf(instancePath: string): Array<string | number> {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length === 0) return [];
  const [section, ...rest] = parts;
  return [SECTION[section!] ?? section!, ...rest.map((p) => (/^\d+$/.test(p) ? Number(p) : p))];
}

function param(e: AjvLikeError, key: string): unknown {
  return Array.isArray(e.params) ? undefined : e.params[key];
}

function describe(e: AjvLikeError): { extra?: string; msg: string; type: string } | undefined {
  switch (e.keyword) {
    case 'required': {
      const field = String(param(e, 'missingProperty'));
      return { extra: field, msg: 'Field required', type: 'missing' };
    }
    case 'additionalProperties': {
      const field = String(param(e, 'additionalProperty'));
      return { extra: field, msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    }
    case 'type': {
      const t = String(param(e, 'type')).split(',')[0];
      const name = t === 'integer' ? 'integer' : t === 'number' ? 'number' : t === 'boolean' ? 'boolean' : t === 'array' ? 'list' : t === 'object' ? 'object' : 'string';
      return { msg: `Input should be a valid ${name}`, type: `${name === 'list' ? 'list' : name === 'object' ? 'model' : name === 'integer' ? 'int' : name === 'number' ? 'float' : name === 'boolean' ? 'bool' : 'string'}_type` };
    }
    case 'minimum': return { msg: `Input should be greater than or equal to ${String(param(e, 'limit'))}`, type: 'greater_than_equal' };
    case 'maximum': return { msg: `Input should be less than or equal to ${String(param(e, 'limit'))}`, type: 'less_than_equal' };
    case 'exclusiveMinimum': return { msg: `Input should be greater than ${String(param(e, 'limit'))}`, type: 'greater_than' };
    case 'exclusiveMaximum': return { msg: `Input should be less than ${String(param(e, 'limit'))}`, type: 'less_than' };
    case 'minLength': return { msg: `String should have at least ${String(param(e, 'limit'))} characters`, type: 'string_too_short' };
    case 'maxLength': return { msg: `String should have at most ${String(param(e, 'limit'))} characters`, type: 'string_too_long' };
    case 'minItems': return { msg: `List should have at least ${String(param(e, 'limit'))} items`, type: 'too_short' };
    case 'maxItems': return { msg: `List should have at most ${String(param(e, 'limit'))} items`, type: 'too_long' };
    case 'pattern': return { msg: `String should match pattern '${String(param(e, 'pattern'))}'`, type: 'string_pattern_mismatch' };
    case 'format': return { msg: `Input should be a valid ${String(param(e, 'format'))}`, type: 'value_error' };
    case 'enum': {
      const allowed = param(e, 'allowedValues');
      const list = Array.isArray(allowed) ? allowed.map((v) => JSON.stringify(v)).join(', ') : '';
      return { msg: `Input should be one of ${list}`, type: 'enum' };
    }
    case 'const': return { msg: `Input should be ${JSON.stringify(param(e, 'allowedValue'))}`, type: 'literal_error' };
    case 'parse': return { msg: 'JSON decode error', type: 'json_invalid' };
    // anyOf/oneOf/if add a summary on top of the branch errors that already explain the failure
    case 'anyOf': case 'oneOf': case 'if': return undefined;
    default: return { msg: e.message ?? `failed ${e.keyword} check`, type: e.keyword };
  }
}

export function toValidationItems(errors: readonly AjvLikeError[]): ValidationItem[] {
  const items: ValidationItem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const d = describe(e);
    if (!d) continue;
    let loc = locOf(e.instancePath);
    if (d.extra !== undefined) {
      // A missing request body is reported by openapi-backend as a missing "requestBody" property.
      loc = d.extra === 'requestBody' && loc.length === 0 ? ['body'] : [...loc, d.extra];
    }
    if (loc.length === 0) loc = ['body'];
    const key = JSON.stringify([loc, d.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ loc, msg: d.msg, type: d.type });
  }
  return items;
}
