import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { OutboundReply } from './outbound.types.js';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A resolver for the connection that answers only with the addresses the policy already checked. */
function pinnedLookup(addresses: LookupAddress[]) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = typeof options.family === 'number' && options.family !== 0 ? options.family : undefined;
    const usable = family === undefined ? addresses : addresses.filter((address) => address.family === family);
    if (options.all) return callback(null, usable);
    const first = usable[0];
    if (!first) return callback(Object.assign(new Error('no resolved address of that family'), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  };
}

/** Whether a socket's connection is open (a reused keep-alive socket already is). */
function whenOpen(socket: Socket, https: boolean, open: () => void): void {
  if (!socket.connecting) return open();
  socket.once(https ? 'secureConnect' : 'connect', open);
}

/**
 * POSTs `body` to `url`, connecting only to `addresses` (or the URL's IP literal), and settles with
 * the response's status — and its body, up to `readBodyBytes`, when asked for (an API's reply; a
 * webhook's is never read) — a redirect is an answer like any other, never followed. A failure before the connection opened is `unreached`; one after it is `unknown`.
 */
export function pinnedPost(
  url: URL,
  addresses: LookupAddress[] | undefined,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; signal?: AbortSignal; readBodyBytes?: number },
): Promise<OutboundReply> {
  return new Promise<OutboundReply>((resolve) => {
    const secure = url.protocol === 'https:';
    let open = false;
    let settled = false;
    const settle = (reply: OutboundReply): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(addresses ? { lookup: pinnedLookup(addresses) } : {}),
    });
    const timer = setTimeout(() => request.destroy(new Error(`no response within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.once('socket', (socket: Socket) => whenOpen(socket, secure, () => (open = true)));
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      const limit = options.readBodyBytes;
      if (limit === undefined) {
        response.destroy();
        settle({ kind: 'answered', status });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) response.destroy(new Error(`response body over ${limit} bytes`));
        else chunks.push(chunk);
      });
      response.once('error', (error) => settle({ kind: 'unknown', reason: error.message }));
      response.once('end', () => settle({ kind: 'answered', status, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', (error) => settle({ kind: open ? 'unknown' : 'unreached', reason: error.message }));
    request.end(body);
  });
}
