import { NestFactory } from '@nestjs/core';
import { GraphQLSchemaBuilderModule, GraphQLSchemaFactory } from '@nestjs/graphql';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { AnswerResolver } from './answer.resolver.js';
import { AuditResolver } from './audit.resolver.js';
import { ChatDestinationsResolver } from './chat-destinations.resolver.js';
import { MembersResolver } from './members.resolver.js';
import { PendingQuestionsResolver } from './pending-questions.resolver.js';
import { QuestionEventsResolver } from './question-events.resolver.js';
import { TasksResolver } from './tasks.resolver.js';
import { WebhooksResolver } from './webhooks.resolver.js';

export const RESOLVERS = [AnswerResolver, AuditResolver, ChatDestinationsResolver, MembersResolver, PendingQuestionsResolver, QuestionEventsResolver, TasksResolver, WebhooksResolver];

/** The SDL as committed in schema.graphql (sorted, so it is stable). */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** Builds the code-first schema from the resolvers alone (no database, no server). */
export async function buildSchemaSdl(): Promise<string> {
  const app = await NestFactory.createApplicationContext(GraphQLSchemaBuilderModule, { logger: false });
  try {
    return printSortedSchema(await app.get(GraphQLSchemaFactory).create(RESOLVERS));
  } finally {
    await app.close();
  }
}
