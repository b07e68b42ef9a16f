import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { answerWire, resolutionResponseWire, resolutionWire, voteReceiptWire } from '#clarification';
import { listCost, MAX_OPTIONS_PER_QUESTION, MAX_QUESTIONS_PER_BUNDLE } from '../limits/operation-cost.js';

// The resolution's GraphQL types: the wire declarations (#clarification) in camelCase, their descriptions
// taken from there; a test fails when a field, its nullability, list-ness or description differs.
const answer = answerWire.shape;
const response = resolutionResponseWire.shape;
const voteReceipt = voteReceiptWire.shape;
const resolution = resolutionWire.shape;

@ObjectType('Answer', { description: answerWire.description })
export class AnswerModel {
  @Field({ description: answer.question_id.description }) questionId!: string;
  @Field(() => [String], { description: answer.selected_options.description, complexity: listCost(MAX_OPTIONS_PER_QUESTION) }) selectedOptions!: string[];
  @Field({ description: answer.custom_text.description }) customText!: string;
}

@ObjectType('ResolutionResponse', { description: resolutionResponseWire.description })
export class ResolutionResponseModel {
  @Field(() => [AnswerModel], { description: response.answers.description, complexity: listCost(MAX_QUESTIONS_PER_BUNDLE) }) answers!: AnswerModel[];
  @Field({ description: response.rejected.description }) rejected!: boolean;
  @Field({ description: response.reject_reason.description }) rejectReason!: string;
}

@ObjectType('VoteReceipt', { description: voteReceiptWire.description })
export class VoteReceiptModel {
  @Field({ description: voteReceipt.replayed.description }) replayed!: boolean;
  @Field(() => Int, { description: voteReceipt.votes.description }) votes!: number;
  @Field(() => Int, { description: voteReceipt.required_answers.description }) requiredAnswers!: number;
}

@ObjectType('Resolution', { description: resolutionWire.description })
export class ResolutionModel {
  @Field({ description: resolution.claimed.description }) claimed!: boolean;
  @Field({ description: resolution.status.description }) status!: string;
  @Field(() => ResolutionResponseModel, { description: resolution.response.description }) response!: ResolutionResponseModel;
  @Field(() => VoteReceiptModel, { nullable: true, description: resolution.vote.description }) vote!: VoteReceiptModel | null;
  @Field(() => String, { nullable: true, description: resolution.receipt.description }) receipt!: string | null;
}

@InputType('AnswerInput')
export class AnswerInput {
  @Field() questionId!: string;
  @Field(() => [String], { nullable: true }) selectedOptions?: string[];
  @Field({ nullable: true }) customText?: string;
}
