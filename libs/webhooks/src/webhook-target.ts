import { BlockList, isIP } from 'node:net';
import { INPUT_LIMITS } from '#common';
import { WebhookError } from './webhooks.errors.js';

/** Loopback, private, link-local, shared, multicast and reserved ranges: not where a webhook may point by default. */
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
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is in a loopback, private, link-local or otherwise non-public range. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return PRIVATE_NETWORKS.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE_NETWORKS.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The host of a URL as an IP literal (brackets removed), or undefined when it is a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

/**
 * A subscription's target: an absolute http(s) URL without credentials, at most 2000 characters.
 * Unless private targets are allowed, a host that is `localhost` or a private IP literal is refused
 * here; names are checked again, against every address they resolve to, at each delivery.
 */
export function validTargetUrl(value: unknown, allowPrivate: boolean): string {
  if (typeof value !== 'string' || value.trim() === '') throw WebhookError.invalid('url is required');
  const text = value.trim();
  if (text.length > INPUT_LIMITS.url) throw WebhookError.invalid(`url must be at most ${INPUT_LIMITS.url} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw WebhookError.invalid('url must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw WebhookError.invalid('url must be an absolute http:// or https:// URL');
  if (url.username || url.password) throw WebhookError.invalid('url must not carry credentials');
  if (!allowPrivate) {
    const literal = literalAddress(url);
    if (url.hostname.toLowerCase() === 'localhost' || (literal !== undefined && isPrivateAddress(literal))) {
      throw WebhookError.invalid('url points at a loopback or private address (allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)');
    }
  }
  return url.toString();
}
