import { Field, InputType, ObjectType } from '@nestjs/graphql';

@ObjectType('Answer')
export class AnswerModel {
  @Field() questionId!: string;
  @Field(() => [String]) selectedOptions!: string[];
  @Field() customText!: string;
}

@ObjectType('ResolutionResponse')
export class ResolutionResponseModel {
  @Field(() => [AnswerModel]) answers!: AnswerModel[];
  @Field() rejected!: boolean;
  @Field() rejectReason!: string;
}

@ObjectType('Resolution', { description: 'claimed:false means another answer won; response is what it said.' })
export class ResolutionModel {
  @Field() claimed!: boolean;
  @Field({ description: 'answered or rejected' }) status!: string;
  @Field(() => ResolutionResponseModel) response!: ResolutionResponseModel;
}

@InputType('AnswerInput')
export class AnswerInput {
  @Field() questionId!: string;
  @Field(() => [String], { nullable: true }) selectedOptions?: string[];
  @Field({ nullable: true }) customText?: string;
}
