import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SESSION_COOKIE } from '#authorization';
import { ErrorBodyDto } from '#common';

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
  return SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBodyDto],
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
}

/** Swagger UI at /docs (its assets from the swagger-ui-dist package), the document at /docs/openapi.json. */
export function registerApiDocs(app: INestApplication): void {
  SwaggerModule.setup(API_DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Parley API',
  });
}
