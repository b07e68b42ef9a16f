import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';
import type { ChatAnswerOutcome } from './chat-answer.types.js';

/** A reservation whose outcome was never recorded (its process died) is taken over after this. */
const ABANDONED_AFTER_MS = 30_000;
/** Interaction ids are kept this long: far past any platform's retries. */
export const INTERACTION_RETENTION_MS = 7 * 86_400_000;

export type Reservation = { kind: 'reserved' } | { kind: 'replay'; outcome: ChatAnswerOutcome } | { kind: 'in_progress' };

/** `chat_interactions`: the platform's interaction or update id, reserved before anything is done, then its outcome. */
@Injectable()
export class ChatInteractionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Reserves the id — or says what the first delivery of it got (or that it is still under way). */
  async reserve(platform: string, interactionId: string): Promise<Reservation> {
    const row = await queryRow<{ reserved: boolean; outcome: ChatAnswerOutcome | null }>(
      this.dataSource,
      `WITH fresh AS (
         INSERT INTO chat_interactions (platform, interaction_id) VALUES ($1, $2)
         ON CONFLICT (platform, interaction_id) DO UPDATE SET created_at = clock_timestamp()
          WHERE chat_interactions.outcome IS NULL
            AND chat_interactions.created_at < clock_timestamp() - make_interval(secs => $3::double precision / 1000)
         RETURNING true AS reserved)
       SELECT COALESCE((SELECT reserved FROM fresh), false) AS reserved,
              (SELECT outcome FROM chat_interactions WHERE platform = $1 AND interaction_id = $2) AS outcome`,
      [platform, interactionId, ABANDONED_AFTER_MS],
    );
    if (row?.reserved) return { kind: 'reserved' };
    return row?.outcome ? { kind: 'replay', outcome: row.outcome } : { kind: 'in_progress' };
  }

  async record(platform: string, interactionId: string, outcome: ChatAnswerOutcome): Promise<void> {
    await this.dataSource.query(`UPDATE chat_interactions SET outcome = $3::jsonb WHERE platform = $1 AND interaction_id = $2`, [
      platform,
      interactionId,
      JSON.stringify(outcome),
    ]);
  }

  /** Forgets interaction ids — and the ticks of multi-select cards (`chat_toggles`) — older than the cutoff. */
  async prune(olderThan: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_interactions WHERE created_at < $1`, [olderThan]);
    await this.dataSource.query(`DELETE FROM chat_toggles WHERE updated_at < $1`, [olderThan]);
  }
}
