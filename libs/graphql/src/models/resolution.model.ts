import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { listCost, MAX_OPTIONS_PER_QUESTION, MAX_QUESTIONS_PER_BUNDLE } from '../limits/operation-cost.js';

@ObjectType('Answer')
export class AnswerModel {
  @Field() questionId!: string;
  @Field(() => [String], { complexity: listCost(MAX_OPTIONS_PER_QUESTION) }) selectedOptions!: string[];
  @Field() customText!: string;
}

@ObjectType('ResolutionResponse')
export class ResolutionResponseModel {
  @Field(() => [AnswerModel], { complexity: listCost(MAX_QUESTIONS_PER_BUNDLE) }) answers!: AnswerModel[];
  @Field() rejected!: boolean;
  @Field() rejectReason!: string;
}

@ObjectType('VoteReceipt', { description: 'A recorded vote that did not resolve its bundle (status pending).' })
export class VoteReceiptModel {
  @Field({ description: 'The same voter sent the same answer again' }) replayed!: boolean;
  @Field(() => Int) votes!: number;
  @Field(() => Int) requiredAnswers!: number;
}

@ObjectType('Resolution', { description: 'claimed:false means another answer won; response is what it said.' })
export class ResolutionModel {
  @Field() claimed!: boolean;
  @Field({ description: 'answered or rejected; pending for a vote of a routed bundle that did not resolve it' }) status!: string;
  @Field(() => ResolutionResponseModel) response!: ResolutionResponseModel;
  @Field(() => VoteReceiptModel, { nullable: true, description: 'Only for a vote that did not resolve the bundle' }) vote!: VoteReceiptModel | null;
  @Field(() => String, {
    nullable: true,
    description: "The resolution's signed receipt (compact JWS) — the same for the winner and every loser; null for a vote that did not resolve the bundle",
  })
  receipt!: string | null;
}

@InputType('AnswerInput')
export class AnswerInput {
  @Field() questionId!: string;
  @Field(() => [String], { nullable: true }) selectedOptions?: string[];
  @Field({ nullable: true }) customText?: string;
}
