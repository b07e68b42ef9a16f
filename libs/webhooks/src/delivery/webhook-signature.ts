import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-parley-signature';
export const TIMESTAMP_HEADER = 'x-parley-timestamp';
export const DELIVERY_HEADER = 'x-parley-delivery';
export const EVENT_HEADER = 'x-parley-event';

/** `sha256=` + hex HMAC-SHA256, keyed with the subscription's secret, of `<timestamp>.<body>`. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does (docs/api/webhooks.md): recompute the signature over the timestamp
 * header and the raw body, compare in constant time, and refuse a timestamp too far from now (replays).
 */
export function verifySignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
