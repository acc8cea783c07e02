// Which addresses the service may connect to. Only globally routable unicast addresses are
// public; every special range that ipaddr.js knows (loopback, private, link-local with the cloud
// metadata address, carrier-grade NAT, multicast, broadcast, 0.0.0.0/8, reserved and
// documentation blocks, IPv6 ULA/link-local/site-local) is refused, and so are the IPv6 forms
// that embed or translate to an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo):
// refusing the whole form is simpler and safer than judging the embedded address.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** The range name (ipaddr.js's, plus `ipv4Compatible` and `invalid`) of a non-public address, or null when it is public. */
export function nonPublicRange(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!net.isIP(bare)) return 'invalid';
  const addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv6') {
    const parts = (addr as ipaddr.IPv6).parts;
    // ::/96 (IPv4-compatible, the unspecified and loopback addresses among them) has no own range in ipaddr.js.
    if (parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  }
  const range = addr.range();
  return range === 'unicast' ? null : range;
}

export function isPublicAddress(ip: string): boolean {
  return nonPublicRange(ip) === null;
}

/** `hostname` as the URL parser gives it, without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * The test-only allow-list (`OUTBOUND_ALLOW_HOSTS`): entries are `host` (any port) or
 * `host:port`; IPv6 hosts in brackets (`[::1]:8443`). Compared case-insensitively.
 */
export class AllowList {
  private readonly entries: Set<string>;

  constructor(entries: string[]) {
    this.entries = new Set(entries.map((e) => e.trim().toLowerCase()).filter(Boolean));
  }

  get empty(): boolean {
    return this.entries.size === 0;
  }

  has(hostname: string, port: number | string): boolean {
    if (this.empty) return false;
    const bare = bareHost(hostname.toLowerCase());
    const shown = net.isIPv6(bare) ? `[${bare}]` : bare;
    return this.entries.has(shown) || this.entries.has(`${shown}:${port}`);
  }
}
