import type { StatementCatalog } from '#persistence';
import { sessionStatements } from './session/session.repository.js';
import { taskStatements } from './task/task.repository.js';
import { workspaceStatements } from './workspace/workspace.repository.js';

/** Every statement the tasks lib's repositories run, for `npm run sql:write` and its staleness test. */
export function tasksStatements(): StatementCatalog {
  return {
    lib: 'tasks',
    statements: [
      ...sessionStatements,
      ...taskStatements,
      ...workspaceStatements,
    ],
  };
}
