import { z } from 'zod';
import { INPUT_LIMITS } from '#common';
import { actionWire } from '#receipts';
import { resolvedByWire } from './resolved-by.wire.js';
import { answerWire, resolutionResponseWire } from './resolution.wire.js';
import { routingViewWire } from './pending-bundle.wire.js';

/**
 * One bundle as its own read reports it: GET /api/v1/clarification/:id and the MCP show_question tool
 * answer exactly this (the tool publishes it as its output schema), its votes are GraphQL's Vote, and
 * its questions are the questions as asked (the ask's request body names the same component).
 */

/** A bundle's state as its read reports it, on any replica and after any restart. */
export const BUNDLE_STATUSES = ['pending', 'delivering', 'answered', 'rejected', 'expired', 'cancelled', 'inactive'] as const;

/** At most this many options a question offers, and at least this many. */
export const MAX_OPTIONS = 6;
export const MIN_OPTIONS = 2;
/** At most this many questions a bundle asks together. */
export const MAX_QUESTIONS = 4;

/**
 * Fields REST has always published as free-form objects: generated clients read them as maps, so the
 * OpenAPI document keeps them so (wire-openapi.ts); every other surface has their declared fields.
 */
export const PUBLISHED_AS_MAP = z.registry();

/** An option as asked (and as read back: its generated id filled in). */
export const askedOptionWire = z.strictObject({
  option_id: z.string().max(INPUT_LIMITS.id).optional().describe('Generated as q{i}_opt{j} when absent'),
  label: z.string().min(1).max(INPUT_LIMITS.label),
  description: z.string().max(INPUT_LIMITS.description).optional(),
});

/** A question as asked (and as read back: its generated id and title filled in). */
export const askedQuestionWire = z.strictObject({
  id: z.string().max(INPUT_LIMITS.id).optional().describe('Generated as q1..qN when absent'),
  title: z.string().max(INPUT_LIMITS.title).optional(),
  prompt: z.string().min(1).max(INPUT_LIMITS.prompt),
  options: z.array(askedOptionWire).min(MIN_OPTIONS).max(MAX_OPTIONS),
  multi_select: z.boolean().optional().describe('A connector may pick several options'),
  kind: z.enum(['single', 'plan']).optional(),
});

/** Who cast a vote. */
export const voterWire = z.object({
  kind: z.string().describe('user, admin or synthetic'),
  user_id: z.string().nullable(),
  name: z.string().nullable(),
});

const voter = voterWire.describe('{kind, user_id, name}');
PUBLISHED_AS_MAP.add(voter, {});

export const voteWire = z
  .object({
    user: voter,
    surface: z.string(),
    at: z.string().meta({ format: 'date-time' }),
    rejected: z.boolean().optional().describe('Once the bundle is resolved'),
    answers: z.array(answerWire).optional().describe('Once the bundle is resolved'),
  })
  .describe("One person's vote on a routed bundle; its answer is shown once the bundle is resolved.");

const winnerResponse = resolutionResponseWire.nullable().describe("The winner's response once final");
PUBLISHED_AS_MAP.add(winnerResponse, {});

export const bundleReadWire = z
  .object({
    pending_id: z.string(),
    session_id: z.string(),
    task_id: z.string(),
    questions: z.array(askedQuestionWire),
    context: z.string(),
    created_at: z.string().meta({ format: 'date-time' }),
    action: actionWire.optional().describe('Only for a bundle asked with an action: what an answer authorizes'),
    action_digest: z.string().optional().describe('With action: SHA-256 (hex) of the RFC 8785 canonical JSON of the action'),
    status: z
      .enum(BUNDLE_STATUSES)
      .describe('`delivering`: an answer won and is being handed to the agent (not final yet); `inactive`: superseded by a newer turn'),
    response: winnerResponse,
    resolved_by: resolvedByWire.nullable().describe('The winner, once its answer is final'),
    receipt: z.string().optional().describe("The resolution's signed receipt (compact JWS), once final; the same one every answerer got"),
    expires_at: z
      .string()
      .meta({ format: 'date-time' })
      .nullable()
      .describe('The deadline, when the bundle was asked with expires_in_seconds'),
    eligible: z.boolean().optional().describe('A routed bundle only: whether the caller may answer it (routing.answerers)'),
    routing: routingViewWire.optional().describe('A routed bundle only'),
    votes: z.array(voteWire).optional().describe('A routed bundle only: its votes'),
  })
  .describe('The bundle as GET /api/v1/clarification/{pending_id} reports it');

export type BundleStatus = (typeof BUNDLE_STATUSES)[number];
export type VoteView = z.infer<typeof voteWire>;
export type BundleReadView = z.infer<typeof bundleReadWire>;
