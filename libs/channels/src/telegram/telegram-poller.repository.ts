import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';

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
    const row = await queryRow<{ next_offset: string }>(
      this.dataSource,
      `INSERT INTO chat_pollers (platform, owner, expires_at) VALUES ('telegram', $1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (platform) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
        WHERE chat_pollers.owner IS NULL OR chat_pollers.owner = EXCLUDED.owner OR chat_pollers.expires_at < clock_timestamp()
       RETURNING next_offset::text AS next_offset`,
      [owner, leaseMs],
    );
    return row ? Number(row.next_offset) : undefined;
  }

  /** Records the next offset and renews the lease; false when this process no longer holds it. */
  async advance(owner: string, nextOffset: number, leaseMs: number): Promise<boolean> {
    const row = await queryRow<{ platform: string }>(
      this.dataSource,
      `UPDATE chat_pollers SET next_offset = GREATEST(next_offset, $2), expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE platform = 'telegram' AND owner = $1 RETURNING platform`,
      [owner, nextOffset, leaseMs],
    );
    return row !== undefined;
  }

  async release(owner: string): Promise<void> {
    await this.dataSource.query(`UPDATE chat_pollers SET owner = NULL, expires_at = NULL WHERE platform = 'telegram' AND owner = $1`, [owner]);
  }
}
