import { Module } from '@nestjs/common';
import { SessionLifecycle } from './session-lifecycle.js';
import { SessionRepository } from './session.repository.js';
import { SessionService } from './session.service.js';
import { SessionsController } from './sessions.controller.js';
import { TaskRepository } from './task.repository.js';
import { TaskService } from './task.service.js';
import { TasksController } from './tasks.controller.js';
import { WorkspaceRepository } from './workspace.repository.js';
import { WorkspaceService } from './workspace.service.js';
import { WorkspacesController } from './workspaces.controller.js';

@Module({
  controllers: [WorkspacesController, TasksController, SessionsController],
  providers: [SessionLifecycle, WorkspaceRepository, WorkspaceService, TaskRepository, TaskService, SessionRepository, SessionService],
  exports: [SessionLifecycle, TaskService, WorkspaceService, SessionService, SessionRepository, TaskRepository],
})
export class TasksModule {}
