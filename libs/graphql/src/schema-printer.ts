import { NestFactory } from '@nestjs/core';
import { GraphQLSchemaBuilderModule, GraphQLSchemaFactory } from '@nestjs/graphql';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { AnswerResolver } from './resolvers/answer.resolver.js';
import { AuditResolver } from './resolvers/audit.resolver.js';
import { ChatDestinationsResolver } from './resolvers/chat-destinations.resolver.js';
import { MembersResolver } from './resolvers/members.resolver.js';
import { PendingQuestionsResolver } from './resolvers/pending-questions.resolver.js';
import { QuestionEventsResolver } from './resolvers/question-events.resolver.js';
import { TasksResolver } from './resolvers/tasks.resolver.js';
import { WebhooksResolver } from './resolvers/webhooks.resolver.js';

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
