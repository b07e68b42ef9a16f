import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { DomainError, isDatabaseUnavailable } from '#common';
import { toGraphqlError } from './graphql-errors.js';

/** Resolvers stay thin: their typed errors become coded GraphQL errors here; unknown ones are logged. */
@Injectable()
export class GraphqlErrorsInterceptor implements NestInterceptor {
  private readonly logger = new Logger('GraphQL');

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (isDatabaseUnavailable(error)) this.logger.warn({ msg: 'database unavailable', err: String(error) });
        else if (!(error instanceof DomainError)) this.logger.error({ msg: 'internal error', err: String(error) });
        return throwError(() => toGraphqlError(error));
      }),
    );
  }
}
