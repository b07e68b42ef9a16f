import { ApiExcludeController } from '@nestjs/swagger';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { GRAPHIQL_ASSETS, GRAPHIQL_INIT_SCRIPT, GRAPHIQL_PAGE } from './graphiql.page.js';

const require = createRequire(import.meta.url);

/**
 * GraphiQL at /graphiql when GRAPHIQL is on (default: on with auth disabled, off with auth
 * enabled). The page holds no data: it is public, and its requests to /graphql carry the
 * browser's own credentials (the session cookie).
 */
@Public()
@ApiExcludeController()
@Controller('graphiql')
export class GraphiqlController {
  private readonly assets = new Map<string, Promise<Buffer>>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private requireEnabled(): void {
    if (!this.config.graphql.graphiql) throw new NotFoundException('GraphiQL is disabled (GRAPHIQL=false)');
  }

  @Get()
  page(@Res() reply: FastifyReply): void {
    this.requireEnabled();
    void reply.type('text/html; charset=utf-8').send(GRAPHIQL_PAGE);
  }

  @Get('assets/init.js')
  init(@Res() reply: FastifyReply): void {
    this.requireEnabled();
    void reply.type('text/javascript; charset=utf-8').send(GRAPHIQL_INIT_SCRIPT);
  }

  @Get('assets/:name')
  async asset(@Param('name') name: string, @Res() reply: FastifyReply): Promise<void> {
    this.requireEnabled();
    const asset = Object.hasOwn(GRAPHIQL_ASSETS, name) ? GRAPHIQL_ASSETS[name] : undefined;
    if (!asset) throw new NotFoundException(`no GraphiQL asset named ${name}`);
    if (!this.assets.has(name)) {
      const root = path.dirname(require.resolve(`${asset.packageName}/package.json`));
      this.assets.set(name, readFile(path.join(root, asset.file)));
    }
    void reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=86400')
      .send(await (this.assets.get(name)));
  }
}
