import { Module } from '@nestjs/common';
import { SessionLifecycle } from './session/session-lifecycle.js';
import { SessionRepository } from './session/session.repository.js';
import { SessionService } from './session/session.service.js';
import { SessionsController } from './session/sessions.controller.js';
import { TaskRepository } from './task/task.repository.js';
import { TaskService } from './task/task.service.js';
import { TasksController } from './task/tasks.controller.js';
import { WorkspaceRepository } from './workspace/workspace.repository.js';
import { WorkspaceService } from './workspace/workspace.service.js';
import { WorkspacesController } from './workspace/workspaces.controller.js';

@Module({
  controllers: [WorkspacesController, TasksController, SessionsController],
  providers: [SessionLifecycle, WorkspaceRepository, WorkspaceService, TaskRepository, TaskService, SessionRepository, SessionService],
  exports: [SessionLifecycle, TaskService, WorkspaceService, SessionService, SessionRepository, TaskRepository],
})
export class TasksModule {}
