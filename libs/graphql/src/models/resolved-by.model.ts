import { Field, ObjectType } from '@nestjs/graphql';
import { resolvedByWire } from '#clarification';

// Its wire declaration (#clarification) in camelCase, descriptions taken from there (a test checks the two agree).
const resolvedBy = resolvedByWire.shape;

@ObjectType('ResolvedBy', { description: resolvedByWire.description })
export class ResolvedByModel {
  @Field({ description: resolvedBy.kind.description }) kind!: string;
  @Field(() => String, { nullable: true, description: resolvedBy.user_id.description }) userId!: string | null;
  @Field(() => String, { nullable: true, description: resolvedBy.name.description }) name!: string | null;
  @Field({ description: resolvedBy.surface.description }) surface!: string;
  @Field({ description: resolvedBy.at.description }) at!: string;
}
