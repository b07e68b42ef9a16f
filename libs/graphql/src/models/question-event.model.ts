import { Field, ObjectType, registerEnumType } from '@nestjs/graphql';
import { QuestionEventType } from '#clarification';
import { ResolutionResponseModel } from './resolution.model.js';
import { ResolvedByModel } from './resolved-by.model.js';
import { listCost } from '../limits/operation-cost.js';
import { AssignedUserModel, MAX_ANSWERERS } from './routing.model.js';

registerEnumType(QuestionEventType, { name: 'QuestionEventType' });

@ObjectType('QuestionEvent')
export class QuestionEventModel {
  @Field({ description: 'Monotonically increasing; pass the last one seen as `after` to resume' }) id!: string;
  @Field(() => QuestionEventType) type!: QuestionEventType;
  @Field() pendingId!: string;
  @Field() sessionId!: string;
  @Field() taskId!: string;
  @Field() workspaceId!: string;
  @Field() occurredAt!: string;
  @Field(() => ResolutionResponseModel, { nullable: true, description: 'The answer, on ANSWERED and REJECTED' })
  response!: ResolutionResponseModel | null;
  @Field(() => ResolvedByModel, { nullable: true, description: 'Who answered, on ANSWERED and REJECTED' })
  resolvedBy!: ResolvedByModel | null;
  @Field(() => String, { nullable: true, description: "The resolution's signed receipt, on ANSWERED and REJECTED" })
  receipt!: string | null;
  @Field(() => [AssignedUserModel], { nullable: true, description: 'The eligible users, on REMINDED and ESCALATED', complexity: listCost(MAX_ANSWERERS) })
  eligible!: AssignedUserModel[] | null;
}
