import { GraphqlError, graphql } from './http.js';
import type { Bundle, TaskSummary, Workspace } from './inbox.types.js';

const BUNDLE_FIELDS = `pendingId taskId sessionId createdAt context
  questions { questionId title prompt status options { optionId label description } }`;

const PENDING = `query Pending($workspaceId: String, $after: String) {
  pendingQuestions(workspaceId: $workspaceId, after: $after) { nodes { ${BUNDLE_FIELDS} } pageInfo { endCursor } } }`;

const DIRECTORY = `query Directory { workspaces { id name } tasks { id title workspaceId } }`;

const ONE = `query One($pendingId: String!) { question(pendingId: $pendingId) {
  ${BUNDLE_FIELDS} resolvedBy { kind userId name surface at } } }`;

export interface PendingPage {
  bundles: Bundle[];
  /** "" on the last page. */
  nextCursor: string;
}

/** One page of the pending list (the same service as the REST list and list_pending_questions_kandev). */
export async function fetchPendingPage(workspaceId: string, cursor: string): Promise<PendingPage> {
  // Absent arguments are left out rather than sent as null: the server reads a null cursor as a bad one.
  const data = await graphql<{ pendingQuestions: { nodes: Bundle[]; pageInfo: { endCursor: string } } }>(PENDING, {
    ...(workspaceId ? { workspaceId } : {}),
    ...(cursor ? { after: cursor } : {}),
  });
  return { bundles: data.pendingQuestions.nodes, nextCursor: data.pendingQuestions.pageInfo.endCursor };
}

export interface Directory {
  workspaces: Workspace[];
  tasks: TaskSummary[];
}

/** The workspaces (for the filter) and task titles (for the group headings) the caller may see. */
export function fetchDirectory(): Promise<Directory> {
  return graphql<Directory>(DIRECTORY);
}

/** One bundle in any state, or undefined when it does not exist or is not the caller's to see. */
export async function fetchBundle(pendingId: string): Promise<Bundle | undefined> {
  try {
    return (await graphql<{ question: Bundle }>(ONE, { pendingId })).question;
  } catch (error) {
    if (error instanceof GraphqlError && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}

export function isPending(bundle: Bundle): boolean {
  return bundle.questions.every((question) => question.status === 'pending');
}
