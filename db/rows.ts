// Normalises what the two drivers return: MySQL booleans are 0/1, BIGINTs may be strings.
export function bool(v: unknown): boolean {
  return v === true || v === 1 || v === '1';
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export function iso(ms: unknown): string {
  return new Date(num(ms)).toISOString();
}

export function isoOrNull(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

export function jsonOr<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  return JSON.parse(v) as T;
}
