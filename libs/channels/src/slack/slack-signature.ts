import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window: a request signed longer ago than this is refused. */
export const SLACK_SIGNATURE_WINDOW_SECONDS = 5 * 60;

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret. */
export function slackSignature(secret: string, timestamp: string, body: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

/** Whether a request is Slack's: its signature over the exact body, made within the window around `nowSeconds`. */
export function isSignedBySlack(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: Buffer,
  nowSeconds: number,
): boolean {
  const { signature, timestamp } = headers;
  if (signature === undefined || timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_SECONDS) return false;
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
