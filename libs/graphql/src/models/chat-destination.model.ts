import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('ChatDestination', { description: "Where a workspace's bundles are posted on a chat platform (its owner's to set)." })
export class ChatDestinationModel {
  @Field() workspaceId!: string;
  @Field({ description: 'slack or telegram' }) platform!: string;
  @Field({ description: 'A Slack channel id (C…) or a Telegram chat id' }) destination!: string;
  @Field() updatedAt!: string;
}
