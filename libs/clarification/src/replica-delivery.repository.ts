import { Injectable } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '../../persistence/src/index.js';
import type { ClarificationResponse } from './clarification.types.js';

/** Presence of live waiters per replica, hand-offs of responses, and the LISTEN/NOTIFY channel. */
@Injectable()
export class ReplicaDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  async announceWaiter(pendingId: string, replicaId: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO clarification_waiters (pending_id, replica_id) VALUES ($1, $2)
       ON CONFLICT (pending_id, replica_id) DO UPDATE SET seen_at = clock_timestamp()`,
      [pendingId, replicaId],
    );
  }

  async withdrawWaiter(pendingId: string, replicaId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM clarification_waiters WHERE pending_id = $1 AND replica_id = $2`, [pendingId, replicaId]);
  }

  async withdrawReplica(replicaId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM clarification_waiters WHERE replica_id = $1`, [replicaId]);
  }

  /** Refreshes this replica's presence and forgets that of replicas silent for `staleAfterMs`. */
  async heartbeat(replicaId: string, staleAfterMs: number): Promise<void> {
    await this.dataSource.query(`UPDATE clarification_waiters SET seen_at = clock_timestamp() WHERE replica_id = $1`, [replicaId]);
    await this.dataSource.query(
      `DELETE FROM clarification_waiters WHERE seen_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)`,
      [staleAfterMs],
    );
  }

  /** Whether another replica announced a live waiter of the bundle recently enough to be alive. */
  async waitingElsewhere(pendingId: string, replicaId: string, freshWithinMs: number): Promise<boolean> {
    const row = await queryRow(
      this.dataSource,
      `SELECT 1 FROM clarification_waiters
        WHERE pending_id = $1 AND replica_id <> $2 AND seen_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000)
        LIMIT 1`,
      [pendingId, replicaId, freshWithinMs],
    );
    return row !== undefined;
  }

  async storeHandoff(id: string, pendingId: string, response: ClarificationResponse): Promise<void> {
    await this.dataSource.query(`INSERT INTO clarification_handoffs (id, pending_id, response) VALUES ($1, $2, $3::jsonb)`, [
      id,
      pendingId,
      JSON.stringify(response),
    ]);
  }

  peekHandoff(id: string): Promise<{ pending_id: string } | undefined> {
    return queryRow(this.dataSource, `SELECT pending_id FROM clarification_handoffs WHERE id = $1`, [id]);
  }

  /** Takes the hand-off (exactly one taker: the replica delivering it, or its origin giving up). */
  takeHandoff(id: string): Promise<{ pending_id: string; response: ClarificationResponse } | undefined> {
    return queryRow(this.dataSource, `DELETE FROM clarification_handoffs WHERE id = $1 RETURNING pending_id, response`, [id]);
  }

  /** Whether the bundle's claim still awaits delivery (no replica confirmed it). */
  async deliveryPending(pendingId: string): Promise<boolean> {
    const row = await queryRow(
      this.dataSource,
      `SELECT 1 FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND metadata->>'response_delivery_pending' = 'true' LIMIT 1`,
      [pendingId],
    );
    return row !== undefined;
  }

  async notify(channel: string, payload: string): Promise<void> {
    await queryRows(this.dataSource, `SELECT pg_notify($1, $2)`, [channel, payload]);
  }

  /**
   * A dedicated connection LISTENing on the channels (plain identifiers); `onLost` is called once
   * if it breaks. The caller ends it.
   */
  async listen(channels: string[], onMessage: (channel: string, payload: string) => void, onLost: () => void): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: (this.dataSource.options as { url?: string }).url });
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      onLost();
    };
    client.on('notification', (message) => onMessage(message.channel, message.payload ?? ''));
    client.on('error', lose);
    client.on('end', lose);
    await client.connect();
    for (const channel of channels) {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
      await client.query(`LISTEN ${channel}`);
    }
    return client;
  }
}
