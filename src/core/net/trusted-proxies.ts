import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Which peers may tell us the client address (`TRUST_PROXY`): CIDR ranges, single addresses or `loopback`. */
export class TrustedProxies {
  private constructor(private readonly ranges: Range[]) {}

  /** Nothing is trusted: X-Forwarded-For is ignored and the socket address is the client. */
  static readonly none = new TrustedProxies([]);

  /** @throws Error naming the entry that is neither `loopback`, an address nor a CIDR range */
  static parse(spec: string | undefined): TrustedProxies {
    const ranges: Range[] = [];
    for (const entry of (spec ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (entry === 'loopback') {
        ranges.push(ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128'));
      } else if (entry.includes('/')) {
        if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a CIDR range`);
        ranges.push(ipaddr.parseCIDR(entry));
      } else {
        if (!ipaddr.isValid(entry)) throw new Error(`"${entry}" is not an IP address, a CIDR range or "loopback"`);
        const addr = ipaddr.parse(entry);
        ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      }
    }
    return ranges.length > 0 ? new TrustedProxies(ranges) : TrustedProxies.none;
  }

  get enabled(): boolean {
    return this.ranges.length > 0;
  }

  trusts(address: string): boolean {
    const addr = normalize(address);
    if (!addr) return false;
    return this.ranges.some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));
  }

  /**
   * The client address: walking X-Forwarded-For from the right (the entry our nearest proxy added), every hop
   * that is a trusted proxy is skipped; the first untrusted one is the client. A client can prepend anything to
   * the header, but cannot get past a proxy we trust.
   */
  clientAddress(socketAddress: string, forwardedFor: string | undefined): string {
    let current = plain(socketAddress);
    if (!this.enabled || !forwardedFor) return current;
    const hops = forwardedFor
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    while (this.trusts(current) && hops.length > 0) {
      const next = hops.pop()!;
      if (!normalize(next)) break;
      current = plain(next);
    }
    return current;
  }
}

function normalize(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(address)) return null;
  const addr = ipaddr.parse(address);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

/** `::ffff:10.0.0.1` as `10.0.0.1`; anything unparsable is kept as given. */
function plain(address: string): string {
  return normalize(address)?.toString() ?? address;
}
