// A DNS server on 127.0.0.1 for tests of studio domain verification (STUDIO_DNS_SERVERS): it
// answers TXT questions from `txt` (name -> values), SERVFAIL for names in `failing`, and
// NXDOMAIN for the rest.
import dns2 from 'dns2';
import type { AddressInfo } from 'node:net';

export interface TestDns {
  /** the STUDIO_DNS_SERVERS value that reaches it */
  server: string;
  txt: Map<string, string[]>;
  failing: Set<string>;
  close(): Promise<void>;
}

export async function startDns(): Promise<TestDns> {
  const { Packet } = dns2;
  // RFC 1035 response codes (the typings leave Packet.RCODE out)
  const SERVFAIL = 2;
  const NXDOMAIN = 3;
  const txt = new Map<string, string[]>();
  const failing = new Set<string>();
  const udp = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    const name = q?.name.toLowerCase() ?? '';
    const values = q?.type === Packet.TYPE.TXT ? txt.get(name) : undefined;
    if (failing.has(name)) response.header.rcode = SERVFAIL;
    else if (!values) response.header.rcode = NXDOMAIN;
    else for (const data of values) response.answers.push({ name: q!.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data } as never);
    void send(response);
  });
  await new Promise<void>((resolve) => { udp.bind(0, '127.0.0.1', () => resolve()); });
  const { port } = udp.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`, txt, failing,
    close: () => new Promise<void>((resolve) => { udp.close(() => resolve()); }),
  };
}

/** Publishes the TXT record of each of a studio's domains (the studio as its routes answer it). */
export function publishChallenges(dns: TestDns, studio: { domain_verification: Array<{ record: { name: string; value: string } }> }): void {
  for (const { record } of studio.domain_verification) dns.txt.set(record.name, [...(dns.txt.get(record.name) ?? []), record.value]);
}
