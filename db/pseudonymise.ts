// Free text staff write that is kept where an erasure cannot reach it, or should not have to:
// an audit row's parameters and reason (plugins/admin-audit.ts) and the description of a ledger
// row an administrator's top-up, deduction or refund writes (db/wallet/admin.ts). Neither is
// ever updated to forget a person, so neither ever holds an email address: each address in the
// text becomes the account it names, `user:<id>` (which an erasure leaves pointing at the
// anonymised tombstone), or `[address]` when no account has it.
import type { Knex } from 'knex';
import { normaliseEmail } from './email-address.ts';

/** What splits free text into words; a word holding `@` is an address (a search, a reason). Split, not matched: linear on any text. */
const WORD_BREAK = /([\s"'<>(),;:]+)/;

/** The addresses in free text, each as [its place in the words, the address (trailing dots are the sentence's)]. */
export function addressesIn(text: string): Array<[number, string]> {
  if (!text.includes('@')) return [];
  return text.split(WORD_BREAK).flatMap((word, i): Array<[number, string]> => (i % 2 === 0 && word.includes('@') ? [[i, word.replace(/\.+$/, '')]] : []));
}

/** The accounts these addresses name, by normalised address (an unknown one is absent). */
export async function accountIdsByEmail(db: Knex, emails: readonly string[]): Promise<Map<string, number>> {
  if (emails.length === 0) return new Map();
  const rows = await db('users').whereIn('email', [...new Set(emails.map(normaliseEmail))]).select<Array<{ id: number | string; email: string }>>('id', 'email');
  return new Map(rows.map((r) => [normaliseEmail(r.email), Number(r.id)]));
}

/** The text with each address replaced by `user:<id>` of the account `ids` has for it, else `[address]`. */
export function replaceAddresses(text: string, ids: ReadonlyMap<string, number>): string {
  const found = addressesIn(text);
  if (found.length === 0) return text;
  const words = text.split(WORD_BREAK);
  for (const [i, a] of found) {
    const id = ids.get(normaliseEmail(a));
    words[i] = `${id === undefined ? '[address]' : `user:${id}`}${words[i]!.slice(a.length)}`;
  }
  return words.join('');
}

/** Every string value of a field named `email`, and every address in any other string, anywhere in `value`, normalised. */
export function addressesInValue(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') for (const [, a] of addressesIn(value)) out.add(normaliseEmail(a));
  else if (Array.isArray(value)) for (const v of value) addressesInValue(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'email' && typeof v === 'string') out.add(normaliseEmail(v));
      else addressesInValue(v, out);
    }
  }
  return out;
}

/**
 * A copy of `value` (parameters as the audit log records them) with a field named `email` written
 * as the account it names (`user:<id>`) or `[no account]`, and each address in any other string
 * as replaceAddresses writes it. Recursion follows the value's nesting: pass only bounded values.
 */
export function pseudonymiseValue(value: unknown, ids: ReadonlyMap<string, number>): unknown {
  if (typeof value === 'string') return replaceAddresses(value, ids);
  if (Array.isArray(value)) return value.map((v) => pseudonymiseValue(v, ids));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => {
      if (k !== 'email' || typeof v !== 'string') return [k, pseudonymiseValue(v, ids)];
      const id = ids.get(normaliseEmail(v));
      return [k, id === undefined ? '[no account]' : `user:${id}`];
    }));
  }
  return value;
}

/** replaceAddresses with the accounts looked up: text with no `@` costs no query. */
export async function pseudonymiseText(db: Knex, text: string): Promise<string> {
  const found = addressesIn(text);
  if (found.length === 0) return text;
  return replaceAddresses(text, await accountIdsByEmail(db, found.map(([, a]) => a)));
}
