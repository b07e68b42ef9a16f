import { canonicalJson, sha256Hex } from './canonical-json.js';
import { ANSWER_DECISION, type EnvelopeEcho } from './command.envelope.js';
import { CommandStatus, DecisionError } from '../decisions.errors.js';
import { forbiddenFieldPaths } from './forbidden-fields.js';

export const REQUEST_SCHEMA_VERSION = 1;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const REQUEST_FIELDS = new Set(['schema_version', 'action', 'request_id', 'dry_run', 'target', 'params']);
const CANONICAL_VERSION = 1;

/** The two selection forms: option references of the current decision, or write-in text. */
export type Selection = { optionRefs: string[] } | { text: string };

export interface AnswerDecisionRequest {
  requestId: string | null;
  dryRun: boolean;
  workerId: string;
  decisionRef: string;
  selection: Selection;
}

/** A live request: the caller set `dry_run: false` and a valid request id. */
export interface LiveRequest extends AnswerDecisionRequest {
  requestId: string;
  dryRun: false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && REQUEST_ID.test(value);
}

/** What an envelope echoes of any body, valid or not: a live flag only beside a valid request id. */
export function echoOf(body: unknown): EnvelopeEcho {
  const fields = isRecord(body) ? body : {};
  const requestId = isRequestId(fields.request_id) ? fields.request_id : null;
  return {
    action: typeof fields.action === 'string' ? fields.action : '',
    requestId,
    dryRun: !(fields.dry_run === false && requestId !== null),
  };
}

function nonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function exactKeys(value: Record<string, unknown>, keys: string[]): boolean {
  const actual = Object.keys(value);
  return actual.length === keys.length && keys.every((key) => actual.includes(key));
}

/** The selection's shape; whether it fits the current decision is checked against that decision later. */
function parseSelection(value: unknown): Selection {
  const field = 'params.selection';
  if (!isRecord(value) || Object.keys(value).length !== 1) {
    throw DecisionError.invalidSelection(`${field} must contain exactly one of option_refs or text`, field);
  }
  if ('option_refs' in value) {
    const refs = value.option_refs;
    if (!Array.isArray(refs) || refs.length === 0 || refs.some((ref) => !nonBlank(ref))) {
      throw DecisionError.invalidSelection(`${field}.option_refs must be a non-empty array of option references`, `${field}.option_refs`);
    }
    return { optionRefs: refs as string[] };
  }
  if ('text' in value) {
    if (!nonBlank(value.text)) throw DecisionError.invalidSelection(`${field}.text must be non-empty text`, `${field}.text`);
    return { text: value.text };
  }
  throw DecisionError.invalidSelection(`${field} must contain exactly one of option_refs or text`, field);
}

/**
 * Strict request validation, in the reference's order: a JSON object; no transport field anywhere;
 * no unknown top-level field; schema_version exactly the integer 1; dry_run a JSON boolean (absent
 * ⇒ true); action answer_decision; a live request needs a request_id of [A-Za-z0-9._-]{1,128}
 * (never trimmed or case-folded); exactly target.worker_id; exactly params.decision_ref and
 * params.selection.
 */
export function parseCommandRequest(body: unknown): AnswerDecisionRequest {
  if (!isRecord(body)) throw DecisionError.invalidRequest('request must be a JSON object', 'request');
  const forbidden = forbiddenFieldPaths(body);
  if (forbidden.length > 0) {
    throw new DecisionError(CommandStatus.InvalidRequest, `request contains forbidden connector or terminal fields: ${forbidden.join(', ')}`, {
      fields: forbidden,
    });
  }
  const unknown = Object.keys(body).filter((key) => !REQUEST_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new DecisionError(CommandStatus.InvalidRequest, `request contains unknown top-level fields: ${unknown.join(', ')}`, {
      fields: unknown.map((key) => `$.${key}`),
    });
  }
  if (body.schema_version !== REQUEST_SCHEMA_VERSION) {
    throw DecisionError.invalidRequest(`schema_version must be ${REQUEST_SCHEMA_VERSION}`, 'schema_version');
  }
  if (body.dry_run !== undefined && typeof body.dry_run !== 'boolean') {
    throw DecisionError.invalidRequest('dry_run must be a JSON boolean', 'dry_run');
  }
  if (body.action !== ANSWER_DECISION) throw DecisionError.invalidRequest(`action must be "${ANSWER_DECISION}"`, 'action');
  const dryRun = body.dry_run !== false;
  if (body.request_id !== undefined && !isRequestId(body.request_id)) {
    throw DecisionError.invalidRequest('request_id must match [A-Za-z0-9._-]{1,128}', 'request_id');
  }
  if (!dryRun && body.request_id === undefined) {
    throw DecisionError.invalidRequest('a live answer_decision (dry_run: false) requires a request_id', 'request_id');
  }
  const target = body.target;
  if (!isRecord(target) || !exactKeys(target, ['worker_id'])) {
    throw DecisionError.invalidRequest('target must contain exactly worker_id', 'target');
  }
  if (!nonBlank(target.worker_id)) throw DecisionError.invalidRequest('target.worker_id must be a non-empty string', 'target.worker_id');
  const params = body.params;
  if (!isRecord(params) || !exactKeys(params, ['decision_ref', 'selection'])) {
    throw DecisionError.invalidRequest('params must contain exactly decision_ref and selection', 'params');
  }
  if (!nonBlank(params.decision_ref)) {
    throw DecisionError.invalidRequest('params.decision_ref must be a non-empty string', 'params.decision_ref');
  }
  return {
    requestId: (body.request_id) ?? null,
    dryRun,
    workerId: target.worker_id,
    decisionRef: params.decision_ref,
    selection: parseSelection(params.selection),
  };
}

export function isLive(request: AnswerDecisionRequest): request is LiveRequest {
  return !request.dryRun && request.requestId !== null;
}

export interface CanonicalMutation {
  json: string;
  fingerprint: string;
}

/**
 * The request's identity for deduplication: action, worker, decision_ref and the selection (option
 * references in numeric order) — never request_id or dry_run. Same request_id, other identity ⇒
 * duplicate_request.
 */
export function canonicalMutation(request: AnswerDecisionRequest): CanonicalMutation {
  const selection =
    'optionRefs' in request.selection
      ? { option_refs: [...request.selection.optionRefs].sort((a, b) => refOrder(a) - refOrder(b) || (a < b ? -1 : a > b ? 1 : 0)) }
      : { text: request.selection.text };
  const json = canonicalJson({
    canonical_version: CANONICAL_VERSION,
    action: ANSWER_DECISION,
    target: { worker_id: request.workerId },
    decision: { decision_ref: request.decisionRef, selection },
  });
  return { json, fingerprint: sha256Hex(json) };
}

function refOrder(ref: string): number {
  return /^\d+$/.test(ref) ? Number(ref) : -1;
}
