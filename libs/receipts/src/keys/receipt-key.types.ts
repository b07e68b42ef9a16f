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
