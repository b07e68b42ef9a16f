import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';

const TELEGRAM_POLLER_ACQUIRE = namedStatement(
  'telegram_poller_acquire',
  ['owner', 'lease_ms'],
  `INSERT INTO chat_pollers (platform, owner, expires_at) VALUES ('telegram', :owner, clock_timestamp() + make_interval(secs => :lease_ms::double precision / 1000))
       ON CONFLICT (platform) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
        WHERE chat_pollers.owner IS NULL OR chat_pollers.owner = EXCLUDED.owner OR chat_pollers.expires_at < clock_timestamp()
       RETURNING next_offset::text AS next_offset`,
);

const TELEGRAM_POLLER_ADVANCE = namedStatement(
  'telegram_poller_advance',
  ['owner', 'next_offset', 'lease_ms'],
  `UPDATE chat_pollers SET next_offset = GREATEST(next_offset, :next_offset), expires_at = clock_timestamp() + make_interval(secs => :lease_ms::double precision / 1000)
        WHERE platform = 'telegram' AND owner = :owner RETURNING platform`,
);

const TELEGRAM_POLLER_RELEASE = namedStatement(
  'telegram_poller_release',
  ['owner'],
  `UPDATE chat_pollers SET owner = NULL, expires_at = NULL WHERE platform = 'telegram' AND owner = :owner`,
);

/** The statements TelegramPollerRepository runs, for `npm run sql:write`. */
export const telegramPollerStatements: readonly NamedStatement[] = [
  TELEGRAM_POLLER_ACQUIRE,
  TELEGRAM_POLLER_ADVANCE,
  TELEGRAM_POLLER_RELEASE,
];

/**
 * `chat_pollers`: the lease of the one process polling Telegram (a second getUpdates would get 409),
 * and the offset of the next update to read. Taken when free or expired, renewed by its holder with
 * every offset it records, given back at shutdown.
 */
@Injectable()
export class TelegramPollerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Takes (or renews) the lease; the offset to read from, or undefined while another process holds it. */
  async acquire(owner: string, leaseMs: number): Promise<number | undefined> {
    const row = await TELEGRAM_POLLER_ACQUIRE.row<{ next_offset: string }>(this.dataSource, { owner, lease_ms: leaseMs });
    return row ? Number(row.next_offset) : undefined;
  }

  /** Records the next offset and renews the lease; false when this process no longer holds it. */
  async advance(owner: string, nextOffset: number, leaseMs: number): Promise<boolean> {
    const row = await TELEGRAM_POLLER_ADVANCE.row<{ platform: string }>(this.dataSource, {
      owner,
      next_offset: nextOffset,
      lease_ms: leaseMs,
    });
    return row !== undefined;
  }

  async release(owner: string): Promise<void> {
    await TELEGRAM_POLLER_RELEASE.rows(this.dataSource, { owner });
  }
}
