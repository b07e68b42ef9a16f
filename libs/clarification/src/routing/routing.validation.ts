import { INPUT_LIMITS } from '#common';
import { ClarificationError } from '../bundle/clarification.errors.js';
import type { EscalationStep, RoutingInput } from './routing.types.js';
import { MAX_ANSWERERS } from '../wire/pending-bundle.wire.js';

export { MAX_ANSWERERS };
export const MAX_REQUIRED_ANSWERS = 10;
export const MAX_ESCALATION_STEPS = 5;
export const MIN_ESCALATION_SECONDS = 30;
export const MAX_ESCALATION_SECONDS = 30 * 86_400;

const invalid = (message: string) => ClarificationError.validation(message);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw invalid(`${field}.${extra} is not an allowed field`);
}

function userIds(value: unknown, field: string): string[] {
  if (!isRecord(value)) throw invalid(`${field} must be an object {user_ids: [...]}`);
  onlyKeys(value, ['user_ids'], field);
  const ids = value.user_ids;
  if (!Array.isArray(ids) || ids.length === 0) throw invalid(`${field}.user_ids must be a non-empty array of user ids`);
  if (ids.length > MAX_ANSWERERS) throw invalid(`${field}.user_ids must hold at most ${MAX_ANSWERERS} user ids`);
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    const at = `${field}.user_ids[${index}]`;
    if (typeof id !== 'string' || id === '') throw invalid(`${at} must be a non-empty string`);
    if (id.length > INPUT_LIMITS.id) throw invalid(`${at} must be shorter than or equal to ${INPUT_LIMITS.id} characters`);
    if (seen.has(id)) throw invalid(`${at} is repeated`);
    seen.add(id);
  });
  return ids as string[];
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function escalationSteps(value: unknown, requiredAnswers: number): EscalationStep[] {
  if (!Array.isArray(value)) throw invalid('routing.escalation must be an array of steps');
  if (value.length > MAX_ESCALATION_STEPS) throw invalid(`routing.escalation must hold at most ${MAX_ESCALATION_STEPS} steps`);
  let previous = 0;
  return value.map((entry, index) => {
    const field = `routing.escalation[${index}]`;
    if (!isRecord(entry)) throw invalid(`${field} must be an object`);
    onlyKeys(entry, ['after_seconds', 'remind', 'reassign_to'], field);
    const after = integer(entry.after_seconds, `${field}.after_seconds`, MIN_ESCALATION_SECONDS, MAX_ESCALATION_SECONDS);
    if (after <= previous) throw invalid(`${field}.after_seconds must be greater than the previous step's (${previous})`);
    previous = after;
    const remind = entry.remind;
    if (remind !== undefined && remind !== true && remind !== false) throw invalid(`${field}.remind must be a boolean`);
    const reassign = entry.reassign_to === undefined ? undefined : userIds(entry.reassign_to, `${field}.reassign_to`);
    if (remind === true && reassign !== undefined) throw invalid(`${field} must either remind or reassign_to, not both`);
    if (remind !== true && reassign === undefined) throw invalid(`${field} must set remind: true or reassign_to`);
    if (reassign !== undefined && reassign.length < requiredAnswers) {
      throw invalid(`${field}.reassign_to.user_ids must name at least required_answers (${requiredAnswers}) users`);
    }
    return reassign === undefined ? { after_seconds: after, remind: true } : { after_seconds: after, reassign_to: { user_ids: reassign } };
  });
}

/**
 * The optional `routing` object of an ask, validated the same way on every surface (400 naming the
 * field); undefined when absent or when it asks for nothing beyond the default (anyone, one answer).
 * Whether its user ids name users the asker may route to is checked by the asking service.
 */
export function normalizeRouting(value: unknown): RoutingInput | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid('routing must be an object');
  onlyKeys(value, ['answerers', 'required_answers', 'escalation'], 'routing');
  const answerers = value.answerers === undefined || value.answerers === null ? null : userIds(value.answerers, 'routing.answerers');
  const required = value.required_answers === undefined ? 1 : integer(value.required_answers, 'routing.required_answers', 1, MAX_REQUIRED_ANSWERS);
  if (answerers !== null && required > answerers.length) {
    throw invalid(`routing.required_answers must be at most the number of answerers.user_ids (${answerers.length})`);
  }
  const escalation = value.escalation === undefined || value.escalation === null ? [] : escalationSteps(value.escalation, required);
  if (answerers === null && required === 1 && escalation.length === 0) return undefined;
  return { answerers, required_answers: required, escalation };
}

/** Every user id a routing object names. */
export function namedUserIds(routing: RoutingInput): string[] {
  return namedUsers(routing).map((user) => user.id);
}

/** Every user id a routing object names, with the field that names it (to say which one is refused). */
export function namedUsers(routing: RoutingInput): { id: string; field: string }[] {
  const named = (routing.answerers ?? []).map((id, index) => ({ id, field: `routing.answerers.user_ids[${index}]` }));
  routing.escalation.forEach((step, index) =>
    (step.reassign_to?.user_ids ?? []).forEach((id, at) => named.push({ id, field: `routing.escalation[${index}].reassign_to.user_ids[${at}]` })),
  );
  return named;
}
