import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { bundleIsActive, CLARIFICATION_REQUEST } from '#tasks';
import { insertEventsCtes } from '../bundle/question-event.sql.js';
import type { AssignedUser } from '../routing/routing.types.js';
import { BUNDLE_CHANNEL } from '../bundle/bundle-signal.channel.js';

export interface DueEscalation {
  pending_id: string;
  session_id: string;
  step: number;
  action: { remind?: boolean; reassign_to?: AssignedUser[] };
}

/** What running a step did: whether it fired (its bundle still active), and the eligible users it named. */
export interface FiredStep {
  fired: boolean;
  type: 'REMINDED' | 'ESCALATED';
}

const ESCALATION_ANY_DUE = namedStatement(
  'escalation_any_due',
  [],
  `SELECT EXISTS (SELECT 1 FROM clarification_escalations WHERE due_at <= clock_timestamp()) AS due`,
);

const ESCALATION_CLAIM_DUE = namedStatement(
  'escalation_claim_due',
  [],
  `SELECT e.pending_id, e.session_id, e.step, e.action FROM clarification_escalations e
        WHERE e.due_at <= clock_timestamp()
          AND NOT EXISTS (SELECT 1 FROM clarification_escalations earlier WHERE earlier.pending_id = e.pending_id AND earlier.step < e.step)
        ORDER BY e.due_at LIMIT 1 FOR UPDATE OF e SKIP LOCKED`,
);

const ESCALATION_RUN_STEP = namedStatement(
  'escalation_run_step',
  ['pending_id', 'type', 'reassign', 'step', 'reassign_note'],
  `WITH live AS (SELECT ${bundleIsActive(':pending_id')} AS yes),
       current AS (
         SELECT m.metadata->'routing'->'answerers' AS answerers FROM task_session_messages m
          WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}' ORDER BY m.created_at, m.id LIMIT 1),
       reassigned AS (
         UPDATE task_session_messages m
            SET metadata = jsonb_set(m.metadata, '{routing,answerers}', :reassign::jsonb), updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}' AND :reassign::jsonb IS NOT NULL AND (SELECT yes FROM live)
         RETURNING m.id),
       audited AS (
         INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, detail, at)
         SELECT gen_random_uuid()::text, :pending_id, 'escalated', 'escalation', 'system', :reassign_note, statement_timestamp()
          WHERE :reassign::jsonb IS NOT NULL AND (SELECT yes FROM live)
         RETURNING id),
       ${insertEventsCtes(`SELECT :type::text AS type, b.pending_id, b.session_id, b.task_id,
              jsonb_build_object('step', :step::int, 'eligible', COALESCE(:reassign::jsonb, (SELECT answerers FROM current), '[]'::jsonb),
                                 'everyone', :reassign::jsonb IS NULL AND COALESCE(jsonb_typeof((SELECT answerers FROM current)), 'null') <> 'array') AS payload
         FROM clarification_bundles b WHERE b.pending_id = :pending_id AND (SELECT yes FROM live)`)},
       signals AS (SELECT pg_notify('${BUNDLE_CHANNEL}', json_build_object('pending_id', :pending_id::text, 'kind', 'routed')::text) FROM events),
       dropped AS (
         DELETE FROM clarification_escalations WHERE pending_id = :pending_id AND (step = :step OR NOT (SELECT yes FROM live)) RETURNING step)
       SELECT (SELECT yes FROM live) AS fired,
              (SELECT COUNT(*) FROM reassigned) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM signals) + (SELECT COUNT(*) FROM dropped) AS written`,
);

/** The statements EscalationRepository runs, for `npm run sql:write`. */
export const escalationStatements: readonly NamedStatement[] = [ESCALATION_ANY_DUE, ESCALATION_CLAIM_DUE, ESCALATION_RUN_STEP];

/** `clarification_escalations`: the escalation steps of routed bundles still to run, one row each. */
@Injectable()
export class EscalationRepository {
  constructor(private readonly dataSource: DataSource) {}

  async anyDue(): Promise<boolean> {
    const row = await ESCALATION_ANY_DUE.row<{ due: boolean }>(this.dataSource, {});
    return row?.due === true;
  }

  /**
   * Locks the most overdue step no other process is running (SKIP LOCKED) whose earlier steps are all
   * done — a step waits while an earlier one of its bundle is still there (being run elsewhere, or not
   * due), so the ladder runs in order. The session's lock is taken after this one, as the deadline sweep does.
   */
  claimDue(manager: EntityManager): Promise<DueEscalation | undefined> {
    return ESCALATION_CLAIM_DUE.row<DueEscalation>(manager, {});
  }

  /**
   * Runs one step in one statement, the session locked by the caller: if its bundle is still active,
   * a reassignment replaces the rows' answerers and is audited, and the step's event (REMINDED or
   * ESCALATED, naming the eligible users) is written with its webhook deliveries; the step's row is
   * deleted — with every later one when the bundle is no longer active (the ladder ends with it).
   */
  async runStep(due: DueEscalation, manager: EntityManager): Promise<FiredStep> {
    const reassign = due.action.reassign_to ?? null;
    const type = reassign === null ? 'REMINDED' : 'ESCALATED';
    const row = await ESCALATION_RUN_STEP.row<{ fired: boolean }>(manager, {
      pending_id: due.pending_id,
      type,
      reassign: reassign === null ? null : JSON.stringify(reassign),
      step: due.step,
      reassign_note: reassign === null ? null : `step ${due.step}: reassigned to ${reassign.map((user) => user.name || user.user_id).join(', ')}`,
    });
    return { fired: row?.fired === true, type };
  }
}
