import { UseInterceptors } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { ChatDestinationService, type ChatDestinationView } from '#channels';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { ChatDestinationModel } from '../models/chat-destination.model.js';
import { listCost } from '../limits/operation-cost.js';

/** One destination per platform. */
const PLATFORMS = 2;

function destinationModel(view: ChatDestinationView): ChatDestinationModel {
  return { workspaceId: view.workspace_id, platform: view.platform, destination: view.destination, updatedAt: view.updated_at };
}

/** A workspace's chat destinations over GraphQL: the same service and owner-only rule as REST and the CLI. */
@Resolver(() => ChatDestinationModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class ChatDestinationsResolver {
  constructor(private readonly destinations: ChatDestinationService) {}

  @Query(() => [ChatDestinationModel], { description: "A workspace's chat destinations (its owner or an admin)", complexity: listCost(PLATFORMS) })
  async chatDestinations(@GqlCaller() caller: Caller, @Args('workspaceId') workspaceId: string): Promise<ChatDestinationModel[]> {
    return (await this.destinations.list(caller, workspaceId)).map(destinationModel);
  }

  @Mutation(() => ChatDestinationModel, { description: "Set where a workspace's bundles are posted on a chat platform" })
  async setChatDestination(
    @GqlCaller() caller: Caller,
    @Args('workspaceId') workspaceId: string,
    @Args('platform', { description: 'slack or telegram' }) platform: string,
    @Args('destination', { description: 'A Slack channel id (C…) or a Telegram chat id' }) destination: string,
  ): Promise<ChatDestinationModel> {
    return destinationModel(await this.destinations.set(caller, workspaceId, platform, destination));
  }
}
