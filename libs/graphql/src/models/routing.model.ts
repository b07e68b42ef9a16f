import { Field, Int, ObjectType } from '@nestjs/graphql';
import { assignedUserWire, routingViewWire, voterWire, voteWire } from '#clarification';
import { listCost } from '../limits/operation-cost.js';
import { AnswerModel } from './resolution.model.js';

/** At most this many answerers (and so votes) a bundle names: the cost of their lists. */
export const MAX_ANSWERERS = 50;

// Routing's and the votes' GraphQL types: the wire declarations (#clarification) in camelCase, descriptions
// taken from there (a test checks the two agree); GraphQL's own: `answererIds` is the wire's `answerers.user_ids`.
const assigned = assignedUserWire.shape;
const routing = routingViewWire.shape;
const voter = voterWire.shape;
const vote = voteWire.shape;

@ObjectType('AssignedUser', { description: assignedUserWire.description })
export class AssignedUserModel {
  @Field({ description: assigned.user_id.description }) userId!: string;
  @Field({ description: assigned.name.description }) name!: string;
}

@ObjectType('Routing', { description: routingViewWire.description })
export class RoutingModel {
  @Field(() => [String], { nullable: true, description: `answerers.user_ids; ${routing.answerers.description ?? ''}`, complexity: listCost(MAX_ANSWERERS) })
  answererIds!: string[] | null;
  @Field(() => [AssignedUserModel], { description: routing.assigned_to.description, complexity: listCost(MAX_ANSWERERS) }) assignedTo!: AssignedUserModel[];
  @Field(() => Int, { description: routing.required_answers.description }) requiredAnswers!: number;
}

@ObjectType('Voter', { description: voterWire.description })
export class VoterModel {
  @Field({ description: voter.kind.description }) kind!: string;
  @Field(() => String, { nullable: true, description: voter.user_id.description }) userId!: string | null;
  @Field(() => String, { nullable: true, description: voter.name.description }) name!: string | null;
}

@ObjectType('Vote', { description: voteWire.description })
export class VoteModel {
  @Field(() => VoterModel, { description: vote.user.description }) user!: VoterModel;
  @Field({ description: vote.surface.description }) surface!: string;
  @Field({ description: vote.at.description }) at!: string;
  @Field(() => Boolean, { nullable: true, description: vote.rejected.description }) rejected!: boolean | null;
  @Field(() => [AnswerModel], { nullable: true, description: vote.answers.description, complexity: listCost(4) }) answers!: AnswerModel[] | null;
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

