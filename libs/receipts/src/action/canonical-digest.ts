import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * SHA-256 (lowercase hex) over the RFC 8785 (JCS) canonical JSON of `value`: key order and
 * whitespace never change it. The canonical form is the `canonicalize` package's.
 */
export function canonicalDigest(value: unknown): string {
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new Error('the value has no canonical JSON form');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
