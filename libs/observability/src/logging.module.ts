import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';

/**
 * Nest's loggers write through the same pino logger as Fastify (nestjs-pino, `useExisting`): inside
 * a request through that request's logger (its `reqId`, `trace_id`), elsewhere through the root.
 */
@Module({})
export class LoggingModule {
  static forRoot(root: Logger): DynamicModule {
    return { module: LoggingModule, imports: [LoggerModule.forRoot({ pinoHttp: { logger: root }, useExisting: true, forRoutes: [{ path: '*path', method: RequestMethod.ALL }] })] };
  }
}
