// Free text staff write that is kept where an erasure cannot reach it, or should not have to:
// an audit row's parameters and reason (plugins/admin-audit.ts) and the description of a ledger
// row an administrator's top-up, deduction or refund writes (db/wallet/admin.ts). Neither is
// ever updated to forget a person, so neither ever holds an email address: each address in the
// text becomes the account it names, `user:<id>` (which an erasure leaves pointing at the
// anonymised tombstone), or `[address]` when no account has it.
import type { Knex } from 'knex';
import { normaliseEmail } from './users.ts';

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

/** replaceAddresses with the accounts looked up: text with no `@` costs no query. */
export async function pseudonymiseText(db: Knex, text: string): Promise<string> {
  const found = addressesIn(text);
  if (found.length === 0) return text;
  return replaceAddresses(text, await accountIdsByEmail(db, found.map(([, a]) => a)));
}
