import { GraphqlError, graphql } from '../http.js';
import type { Bundle, TaskSummary, Workspace } from './inbox.types.js';

const BUNDLE_FIELDS = `pendingId taskId sessionId createdAt context
  questions { questionId title prompt status options { optionId label description } }
  eligible routing { assignedTo { userId name } requiredAnswers } action { name arguments }`;

const PENDING = `query Pending($workspaceId: String, $after: String) {
  pendingQuestions(workspaceId: $workspaceId, after: $after) { nodes { ${BUNDLE_FIELDS} } pageInfo { endCursor } } }`;

const DIRECTORY = `query Directory($workspacesAfter: String, $tasksAfter: String, $withWorkspaces: Boolean!, $withTasks: Boolean!) {
  workspaceConnection(after: $workspacesAfter, first: 200) @include(if: $withWorkspaces) { nodes { id name } pageInfo { endCursor } }
  taskConnection(after: $tasksAfter, first: 200) @include(if: $withTasks) { nodes { id title workspaceId } pageInfo { endCursor } } }`;

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

interface DirectoryPage {
  workspaceConnection?: { nodes: Workspace[]; pageInfo: { endCursor: string } };
  taskConnection?: { nodes: TaskSummary[]; pageInfo: { endCursor: string } };
}

/** The workspaces (for the filter) and task titles (for the group headings) the caller may see: every page of both lists. */
export async function fetchDirectory(): Promise<Directory> {
  const directory: Directory = { workspaces: [], tasks: [] };
  // "" is a last page's endCursor; undefined means the list has not been read yet.
  let workspacesAfter: string | undefined;
  let tasksAfter: string | undefined;
  while (workspacesAfter !== '' || tasksAfter !== '') {
    const page = await graphql<DirectoryPage>(DIRECTORY, {
      ...(workspacesAfter ? { workspacesAfter } : {}),
      ...(tasksAfter ? { tasksAfter } : {}),
      withWorkspaces: workspacesAfter !== '',
      withTasks: tasksAfter !== '',
    });
    if (page.workspaceConnection) {
      directory.workspaces.push(...page.workspaceConnection.nodes);
      workspacesAfter = page.workspaceConnection.pageInfo.endCursor;
    }
    if (page.taskConnection) {
      directory.tasks.push(...page.taskConnection.nodes);
      tasksAfter = page.taskConnection.pageInfo.endCursor;
    }
  }
  return directory;
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
