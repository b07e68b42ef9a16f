import { z } from 'zod';

/** The OpenAPI components a lib publishes its wire shapes as: references by shape, and the generated schemas. */
export interface WireComponents {
  /** A reference to a wire shape's component, for a controller's or a request body's OpenAPI decorators. */
  ref(schema: z.ZodType): { $ref: string };
  /** Every listed wire shape as an OpenAPI 3.0 component (the document adds them to its own). */
  schemas(): Record<string, Record<string, unknown>>;
}

/** Fields REST publishes as a free-form object: their own fields dropped, their nullability and description kept. */
interface PublishedAsMap {
  has(schema: z.core.$ZodType): boolean;
}

/**
 * Names wire shapes (zod declarations) as OpenAPI components. The order of `components` is the order
 * they are generated in, which the Python client's generator numbers anonymous enums by.
 */
export function wireComponents(components: ReadonlyArray<readonly [z.ZodType, string]>, publishedAsMap?: PublishedAsMap): WireComponents {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of components) registry.add(schema, { id });
  const asMap = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: Record<string, unknown> }): void => {
    if (publishedAsMap?.has(zodSchema) !== true) return;
    const { nullable, description } = jsonSchema;
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, { type: 'object', ...(nullable === true ? { nullable } : {}), additionalProperties: true, ...(description === undefined ? {} : { description }) });
  };
  return {
    ref(schema) {
      const name = registry.get(schema)?.id;
      if (name === undefined) throw new Error('not a published wire shape');
      return { $ref: `#/components/schemas/${name}` };
    },
    schemas() {
      const { schemas } = z.toJSONSchema(registry, { target: 'openapi-3.0', io: 'input', uri: (id) => `#/components/schemas/${id}`, override: asMap });
      return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutId(schema as Record<string, unknown>)]));
    },
  };
}

/** The components of several libs in one map; two libs naming the same component is a mistake, refused. */
export function mergedWireSchemas(...published: WireComponents[]): Record<string, Record<string, unknown>> {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const schemas of published.map((components) => components.schemas())) {
    for (const [name, schema] of Object.entries(schemas)) {
      if (name in merged) throw new Error(`two wire shapes are published as ${name}`);
      merged[name] = schema;
    }
  }
  return merged;
}

function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}
