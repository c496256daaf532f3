import ipaddr from 'ipaddr.js';

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

function checkV4(addr: ipaddr.IPv4, context = ''): AddressVerdict {
  const range = addr.range();
  // Only ordinary public unicast: this refuses private, loopback, link-local (169.254.169.254 metadata
  // included), CGNAT 100.64/10, multicast, broadcast, 0/8, and IANA special-purpose blocks.
  if (range === 'unicast') return { ok: true };
  return { ok: false, reason: `${context}${addr.toString()} is ${range}` };
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function checkV6(addr: ipaddr.IPv6): AddressVerdict {
  const p = addr.parts;
  const range = addr.range();
  const shown = addr.toString();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d, connects straight to the v4 address
    case 'rfc6145': // ::ffff:0:a.b.c.d (SIIT)
      return checkV4(v4FromWords(p[6], p[7]), `${shown} carries `);
    case 'rfc6052': {
      // 64:ff9b::/96 (NAT64) carries a v4 address; 64:ff9b:1::/48 is for local networks only.
      if (p[2] !== 0 || p[1] !== 0xff9b || p[3] !== 0 || p[4] !== 0 || p[5] !== 0) {
        return { ok: false, reason: `${shown} is local-use NAT64` };
      }
      return checkV4(v4FromWords(p[6], p[7]), `${shown} carries `);
    }
    case '6to4':
      return checkV4(v4FromWords(p[1], p[2]), `${shown} carries `);
    case 'teredo': {
      const server = checkV4(v4FromWords(p[2], p[3]), `${shown} (Teredo server) carries `);
      if (!server.ok) return server;
      // The Teredo client address is stored bit-inverted.
      return checkV4(v4FromWords(~p[6] & 0xffff, ~p[7] & 0xffff), `${shown} (Teredo client) carries `);
    }
    case 'unicast':
      // ipaddr calls everything it has no name for "unicast" (e.g. deprecated IPv4-compatible ::a.b.c.d);
      // only 2000::/3 is globally routed.
      if ((p[0] & 0xe000) !== 0x2000) return { ok: false, reason: `${shown} is outside global unicast 2000::/3` };
      return { ok: true };
    default:
      return { ok: false, reason: `${shown} is ${range}` };
  }
}

/** Whether a literal IP address is a public destination the server may connect to on a user's behalf. */
export function checkPublicAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { ok: false, reason: `${address} is not an IP address` };
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? checkV4(parsed as ipaddr.IPv4) : checkV6(parsed as ipaddr.IPv6);
}
