import { Field, Int, ObjectType } from '@nestjs/graphql';
import { listCost } from '../limits/operation-cost.js';
import { AnswerModel } from './resolution.model.js';

/** At most this many answerers (and so votes) a bundle names: the cost of their lists. */
export const MAX_ANSWERERS = 50;

@ObjectType('AssignedUser')
export class AssignedUserModel {
  @Field() userId!: string;
  @Field() name!: string;
}

@ObjectType('Routing', { description: 'Who may answer a bundle and how many identical answers resolve it.' })
export class RoutingModel {
  @Field(() => [String], { nullable: true, description: 'answerers.user_ids; null: whoever sees the bundle may answer', complexity: listCost(MAX_ANSWERERS) })
  answererIds!: string[] | null;
  @Field(() => [AssignedUserModel], { complexity: listCost(MAX_ANSWERERS) }) assignedTo!: AssignedUserModel[];
  @Field(() => Int) requiredAnswers!: number;
}

@ObjectType('Voter')
export class VoterModel {
  @Field({ description: 'user, admin or synthetic' }) kind!: string;
  @Field(() => String, { nullable: true }) userId!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
}

@ObjectType('Vote', { description: "One person's vote on a routed bundle; its answer is shown once the bundle is resolved." })
export class VoteModel {
  @Field(() => VoterModel) user!: VoterModel;
  @Field() surface!: string;
  @Field() at!: string;
  @Field(() => Boolean, { nullable: true }) rejected!: boolean | null;
  @Field(() => [AnswerModel], { nullable: true, complexity: listCost(4) }) answers!: AnswerModel[] | null;
}

@ObjectType('WorkspaceMember', { description: 'A user who sees a workspace as its owner does.' })
export class WorkspaceMemberModel {
  @Field() workspaceId!: string;
  @Field() userId!: string;
  @Field() name!: string;
  @Field() addedAt!: string;
}

@ObjectType('WorkspaceMemberChange')
export class WorkspaceMemberChangeModel {
  @Field() workspaceId!: string;
  @Field() userId!: string;
  @Field({ description: 'addWorkspaceMember: whether the user is newly a member; removeWorkspaceMember: whether one was removed' }) changed!: boolean;
}

