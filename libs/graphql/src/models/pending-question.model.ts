import { Field, Int, ObjectType } from '@nestjs/graphql';
import { listCost, MAX_OPTIONS_PER_QUESTION, MAX_QUESTIONS_PER_BUNDLE } from '../limits/operation-cost.js';
import { ResolvedByModel } from './resolved-by.model.js';
import { MAX_ANSWERERS, RoutingModel, VoteModel } from './routing.model.js';

@ObjectType('QuestionOption')
export class QuestionOptionModel {
  @Field() optionId!: string;
  @Field() label!: string;
  @Field() description!: string;
}

@ObjectType('PendingQuestion')
export class PendingQuestionModel {
  @Field() questionId!: string;
  @Field() title!: string;
  @Field() prompt!: string;
  @Field({ description: 'pending, answered, rejected, expired or cancelled' }) status!: string;
  @Field(() => [QuestionOptionModel], { complexity: listCost(MAX_OPTIONS_PER_QUESTION) }) options!: QuestionOptionModel[];
}

@ObjectType('Action', { description: 'The action an answer authorizes: what the asking agent will do once answered.' })
export class ActionModel {
  @Field() name!: string;
  @Field({ description: 'The arguments, a JSON object, as JSON text' }) arguments!: string;
}

@ObjectType('PendingBundle', { description: 'A clarification bundle: 1-4 questions an agent asked together.' })
export class PendingBundleModel {
  @Field() pendingId!: string;
  @Field() taskId!: string;
  @Field() sessionId!: string;
  @Field({ description: 'RFC3339 UTC; the earliest row of the bundle' }) createdAt!: string;
  @Field(() => Int) ageSeconds!: number;
  @Field() context!: string;
  @Field(() => [PendingQuestionModel], { complexity: listCost(MAX_QUESTIONS_PER_BUNDLE) }) questions!: PendingQuestionModel[];
  @Field(() => ActionModel, { nullable: true, description: 'The action an answer authorizes; null when asked without one' }) action!: ActionModel | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of the action {name, arguments}' })
  actionDigest!: string | null;
  @Field(() => String, { nullable: true, description: "The resolution's signed receipt, once final (question(pendingId) only; null in lists)" })
  receipt!: string | null;
  @Field(() => ResolvedByModel, { nullable: true, description: 'Who answered, once the answer is final (question(pendingId) only; null in lists)' })
  resolvedBy!: ResolvedByModel | null;
  @Field(() => String, { nullable: true, description: 'RFC3339 UTC deadline, when asked with expires_in_seconds (question(pendingId) only)' })
  expiresAt!: string | null;
  @Field({ description: 'Whether the caller may answer it (routing answerers)' }) eligible!: boolean;
  @Field(() => RoutingModel, { nullable: true, description: 'null when asked without routing' }) routing!: RoutingModel | null;
  @Field(() => [VoteModel], { description: 'The votes of a routed bundle (question(pendingId) only; [] in lists)', complexity: listCost(MAX_ANSWERERS) })
  votes!: VoteModel[];
}

@ObjectType('PageInfo')
export class PageInfoModel {
  @Field() hasNextPage!: boolean;
  @Field({ description: 'Pass as `after` for the next page; "" on the last page' }) endCursor!: string;
}

@ObjectType('PendingQuestionConnection')
export class PendingQuestionConnectionModel {
  // Priced once, by the page size on pendingQuestions.
  @Field(() => [PendingBundleModel]) nodes!: PendingBundleModel[];
  @Field(() => Int, { description: 'Bundles on this page' }) count!: number;
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}
