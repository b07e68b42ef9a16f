import type { Action } from '#receipts';
import type { AnswerWire, ClarificationResponseWire } from '../wire/resolution.wire.js';

export interface QuestionOption {
  option_id: string;
  label: string;
  description: string;
}

/** How a connector may answer a question; absent means `single`. */
export type QuestionKind = 'single' | 'plan';

export interface Question {
  id: string;
  title: string;
  prompt: string;
  options: QuestionOption[];
  /** Optional creation fields, stored only when the asker sets them. */
  multi_select?: boolean;
  kind?: QuestionKind;
}

export interface ClarificationRequest {
  pending_id: string;
  session_id: string;
  task_id: string;
  questions: Question[];
  context: string;
  created_at: string;
  /** The action an answer authorizes and its digest — only when the bundle was asked with one. */
  action?: Action;
  action_digest?: string;
}

/** One question's answer, as every surface reports it. */
export type Answer = AnswerWire;

/** What the asking agent receives; `receipt` once the claim that made it won. */
export type ClarificationResponse = ClarificationResponseWire;

export enum ClarificationStatus {
  Pending = 'pending',
  Responding = 'responding',
  Answered = 'answered',
  Rejected = 'rejected',
  Expired = 'expired',
  Cancelled = 'cancelled',
}

export type TerminalStatus = ClarificationStatus.Answered | ClarificationStatus.Rejected;

/** One durable row of a bundle: a `clarification_request` message. */
export interface BundleRow {
  id: string;
  task_session_id: string;
  /** The message's own task_id column (may be empty — spec M5). */
  task_id: string;
  /** The session row's task_id, when the session still exists (spec M5 fallback). */
  session_task_id: string | null;
  turn_id: string | null;
  content: string;
  metadata: BundleRowMetadata;
  created_at: Date;
  /** When the row last changed (a resolved bundle's rows change last when its answer became final). */
  updated_at?: Date;
}

export interface BundleRowMetadata {
  pending_id?: string;
  question_id?: string;
  question?: Question;
  question_index?: number;
  question_total?: number;
  context?: string;
  status?: string;
  response?: Answer;
  agent_disconnected?: boolean;
  response_delivery_pending?: boolean;
  /** The process (lease id) delivering a claimed response; set with response_delivery_pending. */
  delivery_owner?: string;
  /** Who won the claim, from which surface and when; written by the claim, removed by a rollback. */
  resolved_by?: unknown;
  /** The bundle's deadline (RFC 3339 UTC) when it was asked with `expires_in_seconds`. */
  expires_at?: string;
  /** Why an expired row expired: `deadline` when its bundle's deadline passed. */
  expired_reason?: string;
  /** The action the bundle's answer authorizes (stored on every row of the bundle) and its digest. */
  action?: Action;
  action_digest?: string;
  /** Who asked the bundle (stored on every row of the bundle): its receipt names them. */
  asked_by?: { kind: string; id: string | null };
  /** The resolution's receipt: written by the winning claim with the resolution, removed by a rollback. */
  receipt?: string;
}
