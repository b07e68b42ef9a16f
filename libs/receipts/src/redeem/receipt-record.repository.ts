import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, type SqlExecutor } from '#persistence';

/** Where a receipt stands on the server: whether its bundle's rows still record it, and who opened its session. */
export interface ReceiptRecord {
  recorded: boolean;
  opened_by: string | null;
}

@Injectable()
export class ReceiptRecordRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the bundle `pendingId` records exactly this receipt (a rollback removes it), and its session's opener — one query. */
  async find(pendingId: string, receipt: string, sessionId: string, executor: SqlExecutor = this.dataSource): Promise<ReceiptRecord> {
    return (await queryRow<ReceiptRecord>(
      executor,
      `SELECT EXISTS (SELECT 1 FROM task_session_messages m
                       WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'receipt' = $2) AS recorded,
              (SELECT s.opened_by FROM task_sessions s WHERE s.id = $3) AS opened_by`,
      [pendingId, receipt, sessionId],
    )) as ReceiptRecord;
  }

  /** Spends the receipt `jti`: true the first time, on any replica; false once it was spent. */
  async redeem(redemption: { jti: string; pendingId: string; redeemedBy: string }, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await queryRow<{ jti: string }>(
      executor,
      `INSERT INTO receipt_redemptions (jti, pending_id, redeemed_by) VALUES ($1, $2, $3)
       ON CONFLICT (jti) DO NOTHING RETURNING jti`,
      [redemption.jti, redemption.pendingId, redemption.redeemedBy],
    );
    return row !== undefined;
  }
}
