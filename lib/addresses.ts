// IP addresses and CIDR ranges, for API-key allow-lists, trusted proxies and rate-limit keys.
// ipaddr.process() turns IPv4-mapped IPv6 (::ffff:1.2.3.4) into plain IPv4, so one list entry
// matches a client however its address reaches us.
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

export function parseAddress(text: string): Address | null {
  try {
    return ipaddr.process(text.trim());
  } catch {
    return null;
  }
}

/** true for "1.2.3.4", "2001:db8::1", "10.0.0.0/8" or "2001:db8::/32" */
export function isAddressOrRange(entry: string): boolean {
  if (!entry.includes('/')) return ipaddr.isValid(entry);
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

export function inAnyRange(addr: Address, entries: readonly string[]): boolean {
  return entries.some((entry) => {
    try {
      const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), entry.includes(':') ? 128 : 32];
      return addr.kind() === range.kind() && addr.match(range, bits);
    } catch {
      return false;
    }
  });
}

/**
 * The client's address, for every purpose (key IP restrictions, rate limits, audit and logs):
 * the TCP peer, unless the peer is a trusted proxy, in which case the nearest X-Forwarded-For
 * hop that is not a trusted proxy (hops further left can be forged). Without TRUSTED_PROXIES,
 * X-Forwarded-For is ignored. null only when the peer address itself does not parse.
 */
export function clientIp(
  request: { info: { remoteAddress: string }; headers: Record<string, unknown> },
  trustedProxies: readonly string[],
): Address | null {
  let addr = parseAddress(request.info.remoteAddress);
  if (!addr) return null;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : typeof header === 'string' ? header : '').split(',').map((h) => h.trim()).filter(Boolean);
  while (trustedProxies.length > 0 && inAnyRange(addr, trustedProxies) && hops.length > 0) {
    const next = parseAddress(hops.pop()!);
    if (!next) break;
    addr = next;
  }
  return addr;
}

/** An allow-list entry as a range: a bare address is its own /32 or /128. */
function asRange(entry: string): [Address, number] | null {
  try {
    if (!entry.includes('/')) {
      const a = ipaddr.process(entry);
      return [a, a.kind() === 'ipv4' ? 32 : 128];
    }
    const [range, bits] = ipaddr.parseCIDR(entry);
    if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96];
    return [range, bits];
  } catch {
    return null;
  }
}

/** true when every address of `entry` is inside one of `ranges` (a child key's allow-list within its parent's). */
export function rangeWithinAny(entry: string, ranges: readonly string[]): boolean {
  const inner = asRange(entry);
  if (!inner) return false;
  return ranges.some((r) => {
    const outer = asRange(r);
    return outer !== null && outer[0].kind() === inner[0].kind() && inner[1] >= outer[1] && inner[0].match(outer[0], outer[1]);
  });
}

/**
 * An allow-list entry in its one written form, or null when it is not an address or range:
 * IPv4-mapped IPv6 as IPv4 (`::ffff:1.2.3.4` -> `1.2.3.4`, `::ffff:10.0.0.0/104` -> `10.0.0.0/8`),
 * IPv6 compressed and lower-case, and a range by its network address (`10.1.2.3/8` -> `10.0.0.0/8`).
 */
export function normaliseEntry(entry: string): string | null {
  if (!isAddressOrRange(entry.trim())) return null;
  const range = asRange(entry.trim());
  if (!range) return null;
  const [addr, bits] = range;
  if (!entry.includes('/')) return addr.toString();
  const network = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}
