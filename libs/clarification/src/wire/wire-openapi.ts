import { z } from 'zod';
import { actionWire } from '#receipts';
import { askedOptionWire, askedQuestionWire, bundleReadWire, PUBLISHED_AS_MAP, voteWire } from './bundle-read.wire.js';
import { resolvedByWire } from './resolved-by.wire.js';
import { answerWire, clarificationResponseWire, resolutionResponseWire, respondResultWire, voteReceiptWire } from './resolution.wire.js';
import {
  assignedUserWire,
  pendingBundleWire,
  pendingPageWire,
  pendingQuestionWire,
  questionOptionWire,
  routingViewWire,
  userIdsWire,
} from './pending-bundle.wire.js';

/**
 * The OpenAPI component each wire shape is published as (names clients' generated types already use),
 * in the order the Python client's generator numbers the anonymous enums inside them (a bundle's
 * status and a question's kind before a resolution's status and a resolver's kind).
 */
const COMPONENTS: ReadonlyArray<readonly [z.ZodType, string]> = [
  [askedOptionWire, 'OptionDoc'],
  [askedQuestionWire, 'QuestionDoc'],
  [voteWire, 'VoteDoc'],
  [bundleReadWire, 'BundleDoc'],
  [respondResultWire, 'RespondResultDoc'],
  [resolutionResponseWire, 'ResolutionResponseDoc'],
  [answerWire, 'AnswerDoc'],
  [voteReceiptWire, 'VoteReceiptDoc'],
  [clarificationResponseWire, 'ClarificationResponseDoc'],
  [resolvedByWire, 'ResolvedByDoc'],
  [pendingPageWire, 'PendingPageDoc'],
  [pendingBundleWire, 'PendingBundleDoc'],
  [pendingQuestionWire, 'PendingQuestionDoc'],
  [questionOptionWire, 'QuestionOptionDoc'],
  [actionWire, 'ActionDoc'],
  [routingViewWire, 'RoutingViewDoc'],
  [userIdsWire, 'UserIdsDoc'],
  [assignedUserWire, 'AssignedUserDoc'],
];

const registry = z.registry<{ id: string }>();
for (const [schema, id] of COMPONENTS) registry.add(schema, { id });

/** The component name of a wire shape. */
function wireComponentName(schema: z.ZodType): string {
  const name = registry.get(schema)?.id;
  if (name === undefined) throw new Error('not a published wire shape');
  return name;
}

/** A reference to a wire shape's component, for a controller's or a request body's OpenAPI decorators. */
export function wireRef(schema: z.ZodType): { $ref: string } {
  return { $ref: `#/components/schemas/${wireComponentName(schema)}` };
}

/** Every wire shape as an OpenAPI 3.0 component (the document adds them to its own; request bodies name some of them too). */
export function wireOpenApiComponents(): Record<string, Record<string, unknown>> {
  const { schemas } = z.toJSONSchema(registry, { target: 'openapi-3.0', io: 'input', uri: (id) => `#/components/schemas/${id}`, override: asMap });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutId(schema as Record<string, unknown>)]));
}

function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}

/** A field REST publishes as a free-form object (PUBLISHED_AS_MAP): its own fields dropped, its nullability and description kept. */
function asMap({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: Record<string, unknown> }): void {
  if (!PUBLISHED_AS_MAP.has(zodSchema)) return;
  const { nullable, description } = jsonSchema;
  for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
  Object.assign(jsonSchema, { type: 'object', ...(nullable === true ? { nullable } : {}), additionalProperties: true, ...(description === undefined ? {} : { description }) });
}
