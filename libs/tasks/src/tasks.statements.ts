import type { StatementCatalog } from '#persistence';
import { sessionStatements } from './session.repository.js';
import { taskStatements } from './task.repository.js';
import { workspaceStatements } from './workspace.repository.js';

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
