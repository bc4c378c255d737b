// Proof that a studio's owner controls a domain (docs/partners/studios.md "Domains"): a DNS TXT
// record at `_mediagate-challenge.<hostname>` holding `mediagate-domain-verification=<token>`,
// the token being the claim's own. The record is looked up when the owner asks for a check, with
// the resolvers of STUDIO_DNS_SERVERS or the machine's own.
import { Resolver } from 'node:dns/promises';

export const CHALLENGE_LABEL = '_mediagate-challenge';
const VALUE_PREFIX = 'mediagate-domain-verification=';
/** The longest domain whose record name (`_mediagate-challenge.<domain>`) fits DNS's 253 characters. */
export const LONGEST_VERIFIABLE_DOMAIN = 253 - `${CHALLENGE_LABEL}.`.length;

/** The TXT record that proves control of `hostname` for the claim holding `token`. */
export function challengeRecord(hostname: string, token: string): { type: 'TXT'; name: string; value: string } {
  return { type: 'TXT', name: `${CHALLENGE_LABEL}.${hostname}`, value: `${VALUE_PREFIX}${token}` };
}

/** The TXT strings at a name (each record's chunks joined); [] when the name has none. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** A TXT lookup through `servers` (`ip` or `ip:port`; empty: the machine's resolvers), 2 s a try, two tries. */
export function dnsTxtLookup(servers: readonly string[]): TxtLookup {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (servers.length) resolver.setServers([...servers]);
  return async (name) => {
    try {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
      throw err;
    }
  };
}

/** Whether the challenge record is there: null when it is, otherwise what the owner should know, in a sentence. */
export async function challengeProblem(lookup: TxtLookup, hostname: string, token: string): Promise<string | null> {
  const record = challengeRecord(hostname, token);
  let values: string[];
  try {
    values = await lookup(record.name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'an error';
    return `the DNS lookup of ${record.name} failed (${code}); the domain stays pending: check again in a few minutes`;
  }
  if (values.includes(record.value)) return null;
  if (values.length === 0) return `no TXT record at ${record.name} yet; add it with the value ${record.value} (a new record can take some minutes to be seen)`;
  return `the TXT records at ${record.name} do not include ${record.value}`;
}
