import { Field, Int, ObjectType } from '@nestjs/graphql';
import { PageInfoModel } from './pending-question.model.js';

@ObjectType('Task')
export class TaskModel {
  @Field() id!: string;
  @Field() workspaceId!: string;
  @Field() title!: string;
  @Field() state!: string;
  @Field(() => String, { nullable: true }) archivedAt!: string | null;
  @Field() createdAt!: string;
  @Field() updatedAt!: string;
  @Field(() => String, { nullable: true, description: '"clarification" while a session of the task is blocked, else null' })
  taskPendingAction!: string | null;
  @Field(() => String, { nullable: true, description: 'The same for the newest session of the task' })
  primarySessionPendingAction!: string | null;
}

@ObjectType('Workspace')
export class WorkspaceModel {
  @Field() id!: string;
  @Field() name!: string;
  @Field() ownerId!: string;
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
