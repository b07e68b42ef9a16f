import { Field, ObjectType } from '@nestjs/graphql';
import { AUDIT_SURFACES } from '#common';
import { PageInfoModel } from './pending-question.model.js';

@ObjectType('AttemptCaller')
export class AttemptCallerModel {
  @Field({ description: "user, admin, agent, synthetic or system (the escalation timer's own steps)" }) kind!: string;
  @Field(() => String, { nullable: true }) userId!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
}

@ObjectType('ResolutionAttempt', { description: 'One attempt to answer or reject a bundle, and how it ended.' })
export class ResolutionAttemptModel {
  @Field() id!: string;
  @Field() pendingId!: string;
  @Field({ description: 'won, lost, inactive, invalid, not_found or failed' }) outcome!: string;
  @Field({ description: `${AUDIT_SURFACES.join(', ')} (escalation: the escalation timer's own steps)` }) surface!: string;
  @Field(() => AttemptCallerModel) caller!: AttemptCallerModel;
  @Field(() => Boolean, { nullable: true, description: 'Whether the attempt was a rejection' }) rejected!: boolean | null;
  @Field(() => String, { nullable: true, description: 'The reason as the caller gave it' }) rejectReason!: string | null;
  @Field(() => String, { nullable: true, description: 'Why it did not win: the validation message, or the error' }) detail!: string | null;
  @Field() at!: string;
}

@ObjectType('ResolutionAttemptConnection')
export class ResolutionAttemptConnectionModel {
  // Priced once, by the page size on questionAudit.
  @Field(() => [ResolutionAttemptModel]) nodes!: ResolutionAttemptModel[];
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}
