import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isPrivateAddress, literalAddress } from './webhook-target.js';

export interface PostOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  signal: AbortSignal;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The resolver the connection uses: the name is resolved once, and only its public addresses may be
 * connected to — the check and the connection use the same answer, so a name cannot be re-pointed at a
 * private address between them (DNS rebinding).
 */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((address) => !isPrivateAddress(address.address));
    if (allowed.length === 0) {
      return callback(Object.assign(new Error(`${hostname} resolves only to loopback or private addresses`), { code: 'EPRIVATE' }), []);
    }
    if (options.all) return callback(null, allowed);
    const first = allowed[0];
    return callback(null, first.address, first.family);
  });
}

/**
 * POSTs `body` and resolves with the response's status code (the body is not read). Redirects are
 * not followed. Rejects when the target cannot be reached, answers nothing within the bound, or is
 * a private address while those are not allowed.
 */
export function postWebhook(target: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<number> {
  const url = new URL(target);
  const literal = literalAddress(url);
  if (!options.allowPrivateTargets && literal !== undefined && isPrivateAddress(literal)) {
    return Promise.reject(new Error(`${literal} is a loopback or private address`));
  }
  return new Promise<number>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: options.signal,
      ...(options.allowPrivateTargets ? {} : { lookup: publicOnlyLookup }),
    });
    const timer = setTimeout(() => request.destroy(new Error(`no response within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.once('response', (response) => {
      clearTimeout(timer);
      response.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
