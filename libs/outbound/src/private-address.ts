import { BlockList, isIP } from 'node:net';

/**
 * Where an outbound call may not go by default: loopback, private, link-local, shared (CGNAT),
 * benchmarking, multicast and reserved IPv4 ranges; and the IPv6 ranges that are local or that
 * translate to an IPv4 address a gateway on this network would reach for us — NAT64 (well-known and
 * local-use prefixes) and 6to4. IPv4-mapped IPv6 addresses are checked as the IPv4 address they map.
 */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is in a loopback, private, link-local, translated or otherwise non-public range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE_NETWORKS.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The host of a URL as an IP literal (brackets removed), or undefined when it is a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

/** `localhost` and its subdomains (RFC 6761), with or without the root's trailing dot. */
export function isLocalName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}
