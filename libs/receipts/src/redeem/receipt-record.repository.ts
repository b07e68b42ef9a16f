import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement, type SqlExecutor } from '#persistence';

/** Where a receipt stands on the server: whether its bundle's rows still record it, and who opened its session. */
export interface ReceiptRecord {
  recorded: boolean;
  opened_by: string | null;
}

const RECEIPT_RECORD_FIND = namedStatement(
  'receipt_record_find',
  ['pending_id', 'receipt', 'session_id'],
  `SELECT EXISTS (SELECT 1 FROM task_session_messages m
                       WHERE m.metadata->>'pending_id' = :pending_id AND m.metadata->>'receipt' = :receipt) AS recorded,
              (SELECT s.opened_by FROM task_sessions s WHERE s.id = :session_id) AS opened_by`,
);

const RECEIPT_RECORD_REDEEM = namedStatement(
  'receipt_record_redeem',
  ['jti', 'pending_id', 'redeemed_by'],
  `INSERT INTO receipt_redemptions (jti, pending_id, redeemed_by) VALUES (:jti, :pending_id, :redeemed_by)
       ON CONFLICT (jti) DO NOTHING RETURNING jti`,
);

/** The statements ReceiptRecordRepository runs, for `npm run sql:write`. */
export const receiptRecordStatements: readonly NamedStatement[] = [RECEIPT_RECORD_FIND, RECEIPT_RECORD_REDEEM];

@Injectable()
export class ReceiptRecordRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the bundle `pendingId` records exactly this receipt (a rollback removes it), and its session's opener — one query. */
  async find(pendingId: string, receipt: string, sessionId: string, executor: SqlExecutor = this.dataSource): Promise<ReceiptRecord> {
    return (await RECEIPT_RECORD_FIND.row<ReceiptRecord>(executor, {
      pending_id: pendingId,
      receipt,
      session_id: sessionId,
    })) as ReceiptRecord;
  }

  /** Spends the receipt `jti`: true the first time, on any replica; false once it was spent. */
  async redeem(redemption: { jti: string; pendingId: string; redeemedBy: string }, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await RECEIPT_RECORD_REDEEM.row<{ jti: string }>(executor, {
      jti: redemption.jti,
      pending_id: redemption.pendingId,
      redeemed_by: redemption.redeemedBy,
    });
    return row !== undefined;
  }
}
