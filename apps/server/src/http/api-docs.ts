import type { INestApplication, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { getMetadataStorage, IS_INT, IS_NOT_EMPTY } from 'class-validator';
import { SESSION_COOKIE } from '#authorization';
import { clarificationWire } from '#clarification';
import { closedSchemaNames, ErrorBodyDto, mergedWireSchemas } from '#common';
import { tasksWire } from '#tasks';

export const API_DOCS_PATH = 'docs';
export const OPENAPI_JSON_PATH = 'docs/openapi.json';

/** The OpenAPI 3 document of the REST surface, generated from the controllers and DTOs (@nestjs/swagger). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Parley')
    .setDescription(
      'Agents ask people structured questions; exactly one answer wins. Every error body is `{error, code}` (docs/operations.md, "Error codes"). ' +
        'MCP (`/mcp`, `/mcp/session`) and GraphQL (`/graphql`) are documented in docs/api/mcp.md and docs/api/graphql.md.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A personal access token (parley_pat_…), ADMIN_TOKEN, or where a route says so a session agent token' }, 'bearer')
    .addCookieAuth(SESSION_COOKIE, { type: 'apiKey', in: 'cookie', description: 'The browser session (POST /api/v1/auth/session)' }, 'cookie')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBodyDto],
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  // The wire shapes every surface shares are declared once (zod): their components are generated from it, the tasks lib's first.
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...mergedWireSchemas(tasksWire, clarificationWire) } };
  documentValidationRules(app, document);
  return document;
}

/** The part of an OpenAPI schema object documentValidationRules reads and writes. */
interface SchemaObject {
  type?: string;
  properties?: Record<string, SchemaObject>;
  additionalProperties?: unknown;
  minLength?: number;
}

/** The classes of every `@Body()` parameter of the application's controllers. */
function bodyClasses(app: INestApplication): Set<Type<unknown>> {
  const classes = new Set<Type<unknown>>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller) continue;
      for (const method of Object.getOwnPropertyNames(controller.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number }>;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as unknown[];
        for (const [key, { index }] of Object.entries(args)) {
          const type = types[index];
          if (key.split(':')[0] === String(RouteParamtypes.BODY) && typeof type === 'function' && type !== Object) classes.add(type as Type<unknown>);
        }
      }
    }
  }
  return classes;
}

/**
 * What the global ValidationPipe enforces on a body, said in the document too (@nestjs/swagger reads
 * no class-validator rule without its compiler plugin): a DTO refuses fields it does not name
 * (`additionalProperties: false`, when the document names every field it validates), `@IsNotEmpty()`
 * text has at least one character, `@IsInt()` is an integer. Schemas marked ApiClosedSchema (checked
 * by a service) refuse unnamed fields as well.
 */
function documentValidationRules(app: INestApplication, document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const name of closedSchemaNames()) {
    const schema = schemas[name];
    if (schema && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }
  for (const dto of bodyClasses(app)) {
    const schema = schemas[dto.name];
    if (!schema) continue;
    const properties = schema.properties ?? {};
    const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    if (schema.additionalProperties === undefined && rules.every((rule) => rule.propertyName in properties)) schema.additionalProperties = false;
    for (const rule of rules) {
      const property = properties[rule.propertyName];
      if (property?.type === 'string' && rule.name === IS_NOT_EMPTY) property.minLength = Math.max(property.minLength ?? 0, 1);
      if (property?.type === 'number' && rule.name === IS_INT) property.type = 'integer';
    }
  }
}

/** Swagger UI at /docs (its assets from the swagger-ui-dist package), the document at /docs/openapi.json. */
export function registerApiDocs(app: INestApplication): void {
  SwaggerModule.setup(API_DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Parley API',
  });
}
