import { Field, Int, ObjectType } from '@nestjs/graphql';
import { pendingBundleWire, pendingPageWire, pendingQuestionWire, questionOptionWire } from '#clarification';
import { actionWire } from '#receipts';
import { listCost, MAX_OPTIONS_PER_QUESTION, MAX_QUESTIONS_PER_BUNDLE } from '../limits/operation-cost.js';
import { ResolvedByModel } from './resolved-by.model.js';
import { MAX_ANSWERERS, RoutingModel, VoteModel } from './routing.model.js';

// The pending bundle's GraphQL types: the wire declarations (#clarification) in camelCase, their
// descriptions taken from there; a test fails when a field, its nullability, list-ness or description
// differs. GraphQL's own: an action's arguments as JSON text, `eligible` always present (true when not
// routed), what question(pendingId) adds (receipt, resolvedBy, expiresAt, votes), and the connection.
const option = questionOptionWire.shape;
const question = pendingQuestionWire.shape;
const action = actionWire.shape;
const bundle = pendingBundleWire.shape;

@ObjectType('QuestionOption', { description: questionOptionWire.description })
export class QuestionOptionModel {
  @Field({ description: option.option_id.description }) optionId!: string;
  @Field({ description: option.label.description }) label!: string;
  @Field({ description: option.description.description }) description!: string;
}

@ObjectType('PendingQuestion', { description: pendingQuestionWire.description })
export class PendingQuestionModel {
  @Field({ description: question.question_id.description }) questionId!: string;
  @Field({ description: question.title.description }) title!: string;
  @Field({ description: question.prompt.description }) prompt!: string;
  @Field({ description: question.status.description }) status!: string;
  @Field(() => [QuestionOptionModel], { description: question.options.description, complexity: listCost(MAX_OPTIONS_PER_QUESTION) }) options!: QuestionOptionModel[];
}

@ObjectType('Action', { description: actionWire.description })
export class ActionModel {
  @Field({ description: action.name.description }) name!: string;
  @Field({ description: `${action.arguments.description ?? ''}, as JSON text` }) arguments!: string;
}

@ObjectType('PendingBundle', { description: pendingBundleWire.description })
export class PendingBundleModel {
  @Field({ description: bundle.pending_id.description }) pendingId!: string;
  @Field({ description: bundle.task_id.description }) taskId!: string;
  @Field({ description: bundle.session_id.description }) sessionId!: string;
  @Field({ description: bundle.created_at.description }) createdAt!: string;
  @Field(() => Int, { description: bundle.age_seconds.description }) ageSeconds!: number;
  @Field({ description: bundle.context.description }) context!: string;
  @Field(() => [PendingQuestionModel], { description: bundle.questions.description, complexity: listCost(MAX_QUESTIONS_PER_BUNDLE) })
  questions!: PendingQuestionModel[];
  @Field(() => ActionModel, { nullable: true, description: bundle.action.description }) action!: ActionModel | null;
  @Field(() => String, { nullable: true, description: bundle.action_digest.description }) actionDigest!: string | null;
  @Field(() => String, { nullable: true, description: "The resolution's signed receipt, once final (question(pendingId) only; null in lists)" })
  receipt!: string | null;
  @Field(() => ResolvedByModel, { nullable: true, description: 'Who answered, once the answer is final (question(pendingId) only; null in lists)' })
  resolvedBy!: ResolvedByModel | null;
  @Field(() => String, { nullable: true, description: 'RFC3339 UTC deadline, when asked with expires_in_seconds (question(pendingId) only)' })
  expiresAt!: string | null;
  @Field({ description: 'Whether the caller may answer it (true when not routed; false: answering is refused with NOT_ELIGIBLE)' }) eligible!: boolean;
  @Field(() => RoutingModel, { nullable: true, description: bundle.routing.description }) routing!: RoutingModel | null;
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
  @Field(() => Int, { description: pendingPageWire.shape.count.description }) count!: number;
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}
