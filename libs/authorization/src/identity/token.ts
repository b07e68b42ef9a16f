import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const PERSONAL_ACCESS_TOKEN_PREFIX = 'parley_pat_';
export const SESSION_AGENT_TOKEN_PREFIX = 'parley_sat_';
export const BROWSER_SESSION_PREFIX = 'parley_bs_';

export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(sha256(a), 'hex');
  const right = Buffer.from(sha256(b), 'hex');
  return timingSafeEqual(left, right);
}
