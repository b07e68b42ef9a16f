import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('ResolvedBy', { description: 'Who answered a bundle: the caller, the surface it came through, and when.' })
export class ResolvedByModel {
  @Field({ description: 'user, admin, agent (a session agent token) or synthetic (authentication disabled)' }) kind!: string;
  @Field(() => String, { nullable: true }) userId!: string | null;
  @Field(() => String, { nullable: true, description: "The user's name" }) name!: string | null;
  @Field({ description: 'rest, web (the inbox page), mcp, graphql or command' }) surface!: string;
  @Field({ description: 'RFC3339 UTC: when the winning claim was made' }) at!: string;
}
