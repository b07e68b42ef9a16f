import { Field, Int, ObjectType } from '@nestjs/graphql';
import { taskWire, workspaceWire } from '#tasks';
import { PageInfoModel } from './pending-question.model.js';

// Their wire declarations (#tasks) in camelCase, descriptions taken from there (a test checks the two agree).
const task = taskWire.shape;
const workspace = workspaceWire.shape;

@ObjectType('Task', { description: taskWire.description })
export class TaskModel {
  @Field() id!: string;
  @Field({ description: task.workspace_id.description }) workspaceId!: string;
  @Field() title!: string;
  @Field({ description: task.state.description }) state!: string;
  @Field(() => String, { nullable: true }) archivedAt!: string | null;
  @Field() createdAt!: string;
  @Field() updatedAt!: string;
  @Field(() => String, { nullable: true, description: task.task_pending_action.description })
  taskPendingAction!: string | null;
  @Field(() => String, { nullable: true, description: task.primary_session_pending_action.description })
  primarySessionPendingAction!: string | null;
}

@ObjectType('Workspace', { description: workspaceWire.description })
export class WorkspaceModel {
  @Field() id!: string;
  @Field() name!: string;
  @Field({ description: workspace.owner_id.description }) ownerId!: string;
  @Field() createdAt!: string;
}

@ObjectType('TaskConnection')
export class TaskConnectionModel {
  // Priced once, by the page size on taskConnection.
  @Field(() => [TaskModel]) nodes!: TaskModel[];
  @Field(() => Int, { description: 'Tasks on this page' }) count!: number;
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}

@ObjectType('WorkspaceConnection')
export class WorkspaceConnectionModel {
  // Priced once, by the page size on workspaceConnection.
  @Field(() => [WorkspaceModel]) nodes!: WorkspaceModel[];
  @Field(() => Int, { description: 'Workspaces on this page' }) count!: number;
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}
