import type { components } from './generated/openapi.js';

/** The REST shapes the client sends and receives, as the committed OpenAPI document names them. */
type Schemas = components['schemas'];

/** A question as asked: 2–6 options; missing ids become `q1..qN` and `q{i}_opt{j}` on the server. */
export type Question = Schemas['QuestionDoc'];
export type QuestionOption = Schemas['OptionDoc'];
/** One answer per question: the ids of the chosen options and free text (at most 2000 code points). */
export type Answer = Schemas['AnswerDoc'];
/** A bundle with its status, as `GET /api/v1/clarification/{id}` returns it. */
export type BundleView = Schemas['BundleDoc'];
/** One bundle of the pending list. */
export type PendingBundle = Schemas['PendingBundleDoc'];
/** What `POST /api/v1/clarification/{id}/respond` returns: who won, and the winner's response. */
export type RespondResult = Schemas['RespondResultDoc'];
/** Who may answer, how many must agree, and what happens when nobody does (see docs/api/rest.md). */
export type Routing = Schemas['RoutingDoc'];
/** A recorded vote of a routed bundle that did not resolve it yet. */
export type VoteReceipt = Schemas['VoteReceiptDoc'];
/** The server's error codes (the `code` of every error body; GraphQL and MCP use the same ones). */
export type ServerErrorCode = Schemas['ErrorCode'];
export type ErrorBody = Schemas['ErrorBodyDto'];
export type SessionState = Schemas['SessionState'];
