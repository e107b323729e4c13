// What kind of address an IP address is, for the outbound policy. Checked on addresses, never on
// URL text: `0x7f.1`, `[::ffff:127.0.0.1]` and a name resolving to 127.0.0.1 are all loopback.
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  'loopback' | 'unspecified' | 'link_local' | 'metadata' | 'private' | 'multicast' | 'reserved' | 'public';

const RANGES: ReadonlyArray<[AddressClass, string, number, 'ipv4' | 'ipv6']> = [
  // Cloud metadata services at addresses outside link-local: AWS's IPv6 endpoint, Alibaba Cloud's.
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'],
  ['metadata', '100.100.100.200', 32, 'ipv4'],
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['link_local', '169.254.0.0', 16, 'ipv4'],
  ['link_local', 'fe80::', 10, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['private', '198.18.0.0', 15, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['reserved', '100::', 64, 'ipv6'],
];

const LISTS: ReadonlyArray<[AddressClass, BlockList]> = (() => {
  const byClass = new Map<AddressClass, BlockList>();
  for (const [cls, network, prefix, family] of RANGES) {
    const list = byClass.get(cls) ?? new BlockList();
    list.addSubnet(network, prefix, family);
    byClass.set(cls, list);
  }
  // Metadata first: its addresses sit inside wider classes.
  return [...byClass.entries()];
})();

/** The address without an IPv6 zone (`fe80::1%eth0`) or brackets, or null when it is not an IP address. */
export function normalizeAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return isIP(bare) === 0 ? null : bare.toLowerCase();
}

/**
 * The IPv4 address an IPv6 address carries, when it carries one that reaches the IPv4 host
 * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, the NAT64 prefix `64:ff9b::/96`).
 */
export function embeddedIPv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const groups = expandIPv6(address);
  if (groups === null) return null;
  const tail = (): string =>
    [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].map(String).join('.');
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return tail();
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return tail();
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return tail();
  return null;
}

/** The class of an IP address (IPv4 inside IPv6 is classed as the IPv4 address). */
export function classify(address: string): AddressClass {
  const ip = normalizeAddress(address);
  if (ip === null) return 'reserved';
  const v4 = embeddedIPv4(ip);
  const target = v4 ?? ip;
  const family = isIP(target) === 4 ? 'ipv4' : 'ipv6';
  if (family === 'ipv4' && target === '255.255.255.255') return 'multicast';
  for (const [cls, list] of LISTS) if (list.check(target, family)) return cls;
  return 'public';
}

/** Eight 16-bit groups of an IPv6 address (with an IPv4 tail converted), or null. */
function expandIPv6(address: string): number[] | null {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1]!.split('.').map(Number);
    text = `${text.slice(0, -v4[1]!.length)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Adds an address or a CIDR range (`10.0.0.0/8`, `::1`) to the list; throws when it is neither. */
export function addRange(list: BlockList, entry: string): void {
  const [network, prefixText] = entry.trim().split('/');
  const ip = normalizeAddress(network ?? '');
  if (ip === null) throw new Error(`${entry} is not an address or a CIDR range`);
  const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`${entry} has a bad prefix length`);
  list.addSubnet(ip, prefix, family);
}

/** Whether the text is a valid entry of OUTBOUND_ALLOW_ADDRESSES. */
export function isAddressRange(entry: string): boolean {
  try {
    addRange(new BlockList(), entry);
    return true;
  } catch {
    return false;
  }
}
