import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { APP_CONFIG, type AppConfig } from '#config';
import { DatabaseListener } from '#persistence';
import { RECEIPT_KEYS_CHANNEL, ReceiptKeyRepository } from './receipt-key.repository.js';
import type { NewReceiptKey, PublishedReceiptKey, StoredReceiptKey } from './receipt-key.types.js';

/** The JWS algorithm of every receipt: EdDSA over Ed25519 (RFC 8037). */
export const RECEIPT_ALG = 'EdDSA';
/** Node's longest timer (a retired key may stay published for longer: the timer is then re-armed after it). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
/** The re-read after a retired key's publication ends comes this much later, so it no longer finds the key. */
const UNPUBLISHED_READ_DELAY_MS = 50;
/** An unknown `kid` re-reads the key set at most this often (a rotation may be newer than the last read). */
const UNKNOWN_KID_REFRESH_MS = 1_000;
/**
 * A retired key stays published this much longer than the receipt lifetime: a process that missed
 * the rotation's announcement (its listening connection away) may sign with it until it reconnects.
 */
const PUBLISH_MARGIN_SECONDS = 60;

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

interface KeySet {
  signing: { kid: string; key: SigningKey };
  /** The published public keys by kid. */
  verifying: Map<string, SigningKey>;
  /** The public JWKs, as `/.well-known/jwks.json` serves them. */
  jwks: { keys: JWK[] };
}

/** A fresh Ed25519 key pair in JWK form, its kid the RFC 7638 thumbprint of its public key. */
export async function newReceiptKey(): Promise<NewReceiptKey> {
  const pair = await generateKeyPair(RECEIPT_ALG, { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(pair.publicKey);
  const privateJwk = await exportJWK(pair.privateKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, publicJwk, privateJwk };
}

/** Only the public members of a stored JWK, with what a verifier needs to pick it. */
function publicJwkOf(stored: StoredReceiptKey): JWK {
  const { kty, crv, x } = stored.public_jwk;
  return { kty, crv, x, kid: stored.kid, alg: RECEIPT_ALG, use: 'sig' };
}

/**
 * The receipt keys as this process holds them: created at first start (one set for every replica),
 * re-read on a rotation's announcement, on the listening connection's reconnect (it may have missed
 * one meanwhile), when a retired key's publication ends, and when a receipt names a kid this process
 * does not know yet. Every read runs on the listening connection, never waiting for a pooled one.
 */
@Injectable()
export class ReceiptKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ReceiptKeys');
  private current: KeySet | undefined;
  private loading: Promise<KeySet> | undefined;
  private lastLoad = 0;
  private unpublishTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly keys: ReceiptKeyRepository,
    private readonly listener: DatabaseListener,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.load(true);
    const refresh = () => this.refresh();
    this.stops.push(this.listener.listen(RECEIPT_KEYS_CHANNEL, refresh), this.listener.onReconnect(refresh));
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.unpublishTimer);
    for (const stop of this.stops) stop();
  }

  /** The key receipts are signed with now. */
  async signingKey(): Promise<KeySet['signing']> {
    return (this.current ?? (await this.load(true))).signing;
  }

  /** The public key named `kid`, or undefined when no published key has it (re-read once, at most every second). */
  async verifyingKey(kid: string): Promise<SigningKey | undefined> {
    const known = (this.current ?? (await this.load(true))).verifying.get(kid);
    if (known !== undefined || Date.now() - this.lastLoad < UNKNOWN_KID_REFRESH_MS) return known;
    return (await this.load(false)).verifying.get(kid);
  }

  /** The published public keys (RFC 7517 JWK Set). */
  async jwks(): Promise<{ keys: JWK[] }> {
    return (this.current ?? (await this.load(true))).jwks;
  }

  /** Adds a new signing key; the one it replaces stays published until the receipts it signed have expired. */
  async rotate(): Promise<{ kid: string; retired: string | undefined }> {
    const key = await newReceiptKey();
    const retired = await this.keys.rotate(key, this.config.receiptTtlSeconds + PUBLISH_MARGIN_SECONDS);
    await this.load(false);
    return { kid: key.kid, retired };
  }

  private refresh(): void {
    this.load(false).catch((error: unknown) => this.logger.warn({ msg: 'receipt keys not refreshed', err: String(error) }));
  }

  /** Re-reads the key set once the first retired key's publication ends, so the JWKS stops publishing it then. */
  private refreshWhenUnpublished(stored: PublishedReceiptKey[]): void {
    clearTimeout(this.unpublishTimer);
    const remaining = stored.flatMap((key) => (key.published_for_ms === null ? [] : [key.published_for_ms]));
    if (remaining.length === 0 || this.stopped) return;
    const inMs = Math.min(Math.max(Math.min(...remaining), 0) + UNPUBLISHED_READ_DELAY_MS, LONGEST_TIMER_MS);
    this.unpublishTimer = setTimeout(() => this.refresh(), inMs);
    this.unpublishTimer.unref();
  }

  private load(ensure: boolean): Promise<KeySet> {
    this.loading ??= this.read(ensure).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async read(ensure: boolean): Promise<KeySet> {
    let stored = await this.keys.published(this.listener.connection);
    if (ensure && !stored.some((key) => key.retired_at === null)) {
      await this.keys.addFirst(await newReceiptKey());
      stored = await this.keys.published();
    }
    const signing = stored.find((key) => key.retired_at === null);
    if (!signing) throw new Error('no receipt signing key: run the migrations, then start the server once');
    const verifying = new Map<string, SigningKey>();
    for (const key of stored) verifying.set(key.kid, await importJWK(publicJwkOf(key), RECEIPT_ALG));
    const set: KeySet = {
      signing: { kid: signing.kid, key: await importJWK({ ...signing.private_jwk, alg: RECEIPT_ALG }, RECEIPT_ALG) },
      verifying,
      jwks: { keys: stored.map(publicJwkOf) },
    };
    this.current = set;
    this.lastLoad = Date.now();
    this.refreshWhenUnpublished(stored);
    return set;
  }
}
