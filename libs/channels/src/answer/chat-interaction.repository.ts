import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import type { ChatAnswerOutcome } from './chat-answer.types.js';

/** A reservation whose outcome was never recorded (its process died) is taken over after this. */
const ABANDONED_AFTER_MS = 30_000;
/** Interaction ids are kept this long: far past any platform's retries. */
export const INTERACTION_RETENTION_MS = 7 * 86_400_000;

export type Reservation = { kind: 'reserved' } | { kind: 'replay'; outcome: ChatAnswerOutcome } | { kind: 'in_progress' };

const CHAT_INTERACTION_RESERVE = namedStatement(
  'chat_interaction_reserve',
  ['platform', 'interaction_id', 'abandoned_after_ms'],
  `WITH fresh AS (
         INSERT INTO chat_interactions (platform, interaction_id) VALUES (:platform, :interaction_id)
         ON CONFLICT (platform, interaction_id) DO UPDATE SET created_at = clock_timestamp()
          WHERE chat_interactions.outcome IS NULL
            AND chat_interactions.created_at < clock_timestamp() - make_interval(secs => :abandoned_after_ms::double precision / 1000)
         RETURNING true AS reserved)
       SELECT COALESCE((SELECT reserved FROM fresh), false) AS reserved,
              (SELECT outcome FROM chat_interactions WHERE platform = :platform AND interaction_id = :interaction_id) AS outcome`,
);

const CHAT_INTERACTION_RECORD = namedStatement(
  'chat_interaction_record',
  ['platform', 'interaction_id', 'outcome'],
  `UPDATE chat_interactions SET outcome = :outcome::jsonb WHERE platform = :platform AND interaction_id = :interaction_id`,
);

const CHAT_INTERACTION_PRUNE = namedStatement(
  'chat_interaction_prune',
  ['older_than'],
  `DELETE FROM chat_interactions WHERE created_at < :older_than`,
);

const CHAT_TOGGLE_PRUNE = namedStatement(
  'chat_toggle_prune',
  ['older_than'],
  `DELETE FROM chat_toggles WHERE updated_at < :older_than`,
);

/** The statements ChatInteractionRepository runs, for `npm run sql:write`. */
export const chatInteractionStatements: readonly NamedStatement[] = [
  CHAT_INTERACTION_RESERVE,
  CHAT_INTERACTION_RECORD,
  CHAT_INTERACTION_PRUNE,
  CHAT_TOGGLE_PRUNE,
];

/** `chat_interactions`: the platform's interaction or update id, reserved before anything is done, then its outcome. */
@Injectable()
export class ChatInteractionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Reserves the id — or says what the first delivery of it got (or that it is still under way). */
  async reserve(platform: string, interactionId: string): Promise<Reservation> {
    const row = await CHAT_INTERACTION_RESERVE.row<{ reserved: boolean; outcome: ChatAnswerOutcome | null }>(this.dataSource, {
      platform,
      interaction_id: interactionId,
      abandoned_after_ms: ABANDONED_AFTER_MS,
    });
    if (row?.reserved) return { kind: 'reserved' };
    return row?.outcome ? { kind: 'replay', outcome: row.outcome } : { kind: 'in_progress' };
  }

  async record(platform: string, interactionId: string, outcome: ChatAnswerOutcome): Promise<void> {
    await CHAT_INTERACTION_RECORD.rows(this.dataSource, {
      platform,
      interaction_id: interactionId,
      outcome: JSON.stringify(outcome),
    });
  }

  /** Forgets interaction ids — and the ticks of multi-select cards (`chat_toggles`) — older than the cutoff. */
  async prune(olderThan: Date): Promise<void> {
    await CHAT_INTERACTION_PRUNE.rows(this.dataSource, { older_than: olderThan });
    await CHAT_TOGGLE_PRUNE.rows(this.dataSource, { older_than: olderThan });
  }
}
