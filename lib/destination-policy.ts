// Which webhook destinations the gateway will connect to. By default only https:// URLs whose
// address is public unicast: no loopback, private, link-local (cloud metadata lives there),
// unique-local, multicast, CGNAT, documentation or otherwise reserved ranges, in IPv4, IPv6 or
// IPv4-mapped IPv6 form. The WHATWG URL parser already turns decimal, octal and hex IPv4 forms
// (https://2130706433/, https://0177.0.0.1/) into dotted quads, so one check covers them all.
import dns from 'node:dns';
import ipaddr from 'ipaddr.js';

export interface DestinationPolicy {
  allowInsecure: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

const BLOCKED_NAMES = [/^localhost$/i, /\.localhost$/i, /^metadata\.google\.internal$/i, /\.internal$/i, /\.local$/i];

/** true when an IP address may be connected to under the policy */
export function addressPermitted(address: string, policy: DestinationPolicy): boolean {
  if (policy.allowInsecure) return ipaddr.isValid(address);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    // Only the global unicast block 2000::/3: ipaddr.js gives ::/96 (IPv4-compatible, e.g.
    // ::127.0.0.1, deprecated but still routed to the IPv4 address by some stacks) no range of its own.
    else if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  }
  // ipaddr.js names every special-purpose range; only ordinary global unicast is allowed.
  return addr.range() === 'unicast';
}

/** true for names that only ever mean an internal host (localhost, *.internal, *.local), trailing dot or not */
export function nameBlocked(hostname: string): boolean {
  const host = hostname.replace(/\.+$/, '');
  return BLOCKED_NAMES.some((re) => re.test(host));
}

/**
 * Why a webhook URL is refused at submit time, or null when it is acceptable. `subject` names the
 * URL in the message (another URL the gateway hands on to be fetched, a LoRA's weights_url, is
 * held to the same rule).
 */
export function urlProblem(raw: string, policy: DestinationPolicy, subject = 'webhook URL'): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Input should be a valid URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) return `${subject} must use https://`;
  if (url.username || url.password) return `${subject} must not contain credentials`;
  // "localhost." and "metadata.google.internal." are the same names as without the final dot.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (ipaddr.isValid(host)) {
    if (!addressPermitted(host, policy)) return `${subject} must point at a public address`;
  } else if (!policy.allowInsecure && nameBlocked(host)) {
    return `${subject} must point at a public host`;
  }
  return null;
}

/**
 * A `lookup` for http(s).request that resolves the host afresh and hands the socket only a
 * permitted address: the address checked is the address connected to (no DNS-rebinding window).
 * `resolve` replaces the system resolver (tests).
 */
export function pinnedLookup(policy: DestinationPolicy, resolve: (hostname: string) => Promise<dns.LookupAddress[]> = systemResolve) {
  return (
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
  ): void => {
    resolve(hostname).then(
      (addresses) => {
        const ok = addresses.filter((a) => addressPermitted(a.address, policy));
        if (ok.length === 0) {
          const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to no permitted address`);
          e.code = 'EDESTINATION';
          return callback(e, '', 4);
        }
        if (options.all) return callback(null, ok);
        callback(null, ok[0]!.address, ok[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

function systemResolve(hostname: string): Promise<dns.LookupAddress[]> {
  return dns.promises.lookup(hostname, { all: true });
}
