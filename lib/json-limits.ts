// Limits on what a client's JSON may hold, checked at the edge before anything else reads it.
// Depth: every recursive walk over a request body (validation, audit redaction, canonical hashing,
// adapters' input maps) is bounded by refusing deeper bodies, so no client can drive one of them
// into a stack overflow. Numbers: a number past 2^53 - 1 cannot be kept exactly (an id, an amount
// of credit), so none reaches a handler or the database.

/** The deepest nesting of objects and arrays a JSON body may have; deeper bodies are refused with 422. */
export const MAX_JSON_DEPTH = 32;

/** What a value nested below the cut is replaced with (cutBelow). */
export const CUT = '[cut: nested too deeply]';

/**
 * true when `value` nests objects or arrays deeper than `limit` levels (a scalar is depth 0, `{}`
 * and `[]` are 1). Iterative, and it stops at the first node past the limit, so any input is safe.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * A copy of `value` with every object or array below `limit` levels replaced by CUT, each object's
 * entries passed through `entry` (which may rewrite a value by its key). Recursion is bounded by
 * `limit`, so a value of any depth is safe to pass.
 */
export function cutBelow(value: unknown, limit: number, entry: (key: string, v: unknown, walk: (v: unknown) => unknown) => unknown = (_k, v, walk) => walk(v)): unknown {
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (depth >= limit) return CUT;
    if (Array.isArray(node)) return node.map((v) => walk(v, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, entry(k, v, (inner) => walk(inner, depth + 1))]));
  };
  return walk(value, 0);
}

/**
 * Where `value` holds a number whose magnitude is past Number.MAX_SAFE_INTEGER, or that is not
 * finite, as the path of keys that leads to it ([] for the value itself); undefined when it holds
 * none. Iterative, like nestsDeeperThan; call it on values already known not to nest too deeply.
 */
export function unsafeNumberAt(value: unknown): Array<string | number> | undefined {
  const stack: Array<[unknown, Array<string | number>]> = [[value, []]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'number') {
      if (!Number.isFinite(node) || Math.abs(node) > Number.MAX_SAFE_INTEGER) return at;
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, [...at, i]]));
    } else if (typeof node === 'object' && node !== null) {
      for (const [k, child] of Object.entries(node)) stack.push([child, [...at, k]]);
    }
  }
  return undefined;
}
