import request from 'supertest';
import { gql } from './graphql.js';
import type { McpConnection } from './mcp.js';

/**
 * One answer submitted through any of the three answering surfaces — REST respond, GraphQL
 * answerQuestion/rejectQuestion, MCP answer_question_kandev — and its outcome in one shape, errors
 * included, for the three-surface races.
 */

export type Surface = 'rest' | 'graphql' | 'mcp';
export const SURFACES: readonly Surface[] = ['rest', 'graphql', 'mcp'];

export interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

export type Submission = { kind: 'answer'; answers: Answer[] } | { kind: 'reject'; reason: string };

export interface Envelope {
  claimed: boolean;
  status: string;
  response: { answers: Answer[]; rejected: boolean; reject_reason: string };
  /** The resolution's receipt: the same compact JWS for the winner and every loser. */
  receipt: string | null;
}

/** A resolution, or the error the surface reported: HTTP status (REST/GraphQL) and code. */
export type Outcome = { kind: 'resolved'; envelope: Envelope } | { kind: 'error'; status: number; code: string; message: string };

/** Each surface's own (different) answer, already in N3a form. */
export const ANSWERS: Record<Surface, Answer[]> = {
  rest: [
    { question_id: 'db', selected_options: ['pg'], custom_text: '' },
    { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'from the browser' },
  ],
  graphql: [
    { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
    { question_id: 'q2', selected_options: [], custom_text: 'from graphql' },
  ],
  mcp: [
    { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
    { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'from the agent' },
  ],
};

const RESOLUTION = 'claimed status response { answers { questionId selectedOptions customText } rejected rejectReason } receipt';
const ANSWER = `mutation($pendingId: String!, $answers: [AnswerInput!]!) { answerQuestion(pendingId: $pendingId, answers: $answers) { ${RESOLUTION} } }`;
const REJECT = `mutation($pendingId: String!, $reason: String) { rejectQuestion(pendingId: $pendingId, reason: $reason) { ${RESOLUTION} } }`;

interface GqlResolution {
  claimed: boolean;
  status: string;
  response: { answers: Array<{ questionId: string; selectedOptions: string[]; customText: string }>; rejected: boolean; rejectReason: string };
  receipt: string | null;
}

function fromGraphql(resolution: GqlResolution): Envelope {
  return {
    claimed: resolution.claimed,
    status: resolution.status,
    response: {
      answers: resolution.response.answers.map((answer) => ({
        question_id: answer.questionId,
        selected_options: answer.selectedOptions,
        custom_text: answer.customText,
      })),
      rejected: resolution.response.rejected,
      reject_reason: resolution.response.rejectReason,
    },
    receipt: resolution.receipt,
  };
}

export interface SurfaceClient {
  baseUrl: string;
  /** Bearer token of the answering user (none with auth disabled). */
  token?: string;
  /** An MCP client on this server's /mcp. */
  mcp: McpConnection;
}

export async function submit(surface: Surface, client: SurfaceClient, pendingId: string, submission: Submission): Promise<Outcome> {
  const { baseUrl, token } = client;
  if (surface === 'graphql') {
    const result =
      submission.kind === 'answer'
        ? await gql<{ answerQuestion: GqlResolution }>(
            { baseUrl },
            ANSWER,
            {
              pendingId,
              answers: submission.answers.map((answer) => ({
                questionId: answer.question_id,
                selectedOptions: answer.selected_options,
                customText: answer.custom_text,
              })),
            },
            token,
          )
        : await gql<{ rejectQuestion: GqlResolution }>({ baseUrl }, REJECT, { pendingId, reason: submission.reason }, token);
    const error = result.body.errors?.[0];
    if (error) return { kind: 'error', status: result.status, code: String(error.extensions?.code), message: error.message };
    const data = result.body.data as { answerQuestion?: GqlResolution; rejectQuestion?: GqlResolution };
    return { kind: 'resolved', envelope: fromGraphql((data.answerQuestion ?? data.rejectQuestion) as GqlResolution) };
  }
  if (surface === 'rest') {
    const body = submission.kind === 'answer' ? { answers: submission.answers } : { rejected: true, reject_reason: submission.reason };
    let req = request(baseUrl).post(`/api/v1/clarification/${pendingId}/respond`);
    if (token) req = req.set('authorization', `Bearer ${token}`);
    const res = await req.send(body);
    if (res.status !== 200) return { kind: 'error', status: res.status, code: String(res.status), message: String(res.body.error) };
    const { success: _success, ...envelope } = res.body as Envelope & { success: boolean };
    return { kind: 'resolved', envelope };
  }
  const args =
    submission.kind === 'answer' ? { pending_id: pendingId, answers: submission.answers } : { pending_id: pendingId, rejected: true, reason: submission.reason };
  const outcome = await client.mcp.call('answer_question_kandev', args);
  if (outcome.isError) {
    const { code, message } = JSON.parse(outcome.text) as { code: string; message: string };
    return { kind: 'error', status: 0, code, message };
  }
  return { kind: 'resolved', envelope: JSON.parse(outcome.text) as Envelope };
}

/** The errors that say "no final answer yet — retry": a failed delivery (500) or an unsettled one (503). */
export function isRetryable(outcome: Outcome): boolean {
  if (outcome.kind !== 'error') return false;
  const rolledBack = ['500', 'INTERNAL_ERROR'].includes(outcome.code) && /the answer can be retried$/.test(outcome.message);
  const unsettled = ['503', 'UNAVAILABLE'].includes(outcome.code);
  return rolledBack || unsettled;
}
