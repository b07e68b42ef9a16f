import type { JWK } from 'jose';

/** One stored signing key pair (`private_jwk` never leaves the service). */
export interface StoredReceiptKey {
  kid: string;
  public_jwk: JWK;
  private_jwk: JWK;
  created_at: Date;
  retired_at: Date | null;
  publish_until: Date | null;
}

/** A new key pair to store, in JWK form. */
export interface NewReceiptKey {
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
}

/** A stored key as the key set is read: a retired one with the milliseconds it stays published (null while it signs). */
export interface PublishedReceiptKey extends StoredReceiptKey {
  published_for_ms: number | null;
}
