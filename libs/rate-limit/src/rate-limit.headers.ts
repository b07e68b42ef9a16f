import type { RateLimitDecision } from './rate-limit.policy.js';

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-09): `RateLimit-Policy`
 * names each quota (`q` units per `w` seconds), `RateLimit` its remaining units (`r`) and the
 * seconds until it resets (`t`); a refusal adds `Retry-After`.
 */
export function rateLimitHeaders(decisions: readonly RateLimitDecision[]): Record<string, string> {
  if (decisions.length === 0) return {};
  const headers: Record<string, string> = {
    'ratelimit-policy': decisions.map((d) => `"${d.kind}";q=${d.limit};w=${d.windowSeconds}`).join(', '),
    ratelimit: decisions.map((d) => `"${d.kind}";r=${d.remaining};t=${d.resetSeconds}`).join(', '),
  };
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length > 0) headers['retry-after'] = String(Math.max(...refused.map((decision) => decision.resetSeconds)));
  return headers;
}
