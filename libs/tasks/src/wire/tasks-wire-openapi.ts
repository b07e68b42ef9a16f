import { wireComponents } from '#common';
import { taskPageWire, taskWire, workspacePageWire, workspaceWire } from './task.wire.js';

/** The tasks lib's wire shapes as OpenAPI components, under the names clients' generated types already use. */
export const tasksWire = wireComponents([
  [workspaceWire, 'WorkspaceDoc'],
  [workspacePageWire, 'WorkspaceListDoc'],
  [taskWire, 'TaskDoc'],
  [taskPageWire, 'TaskListDoc'],
]);
