import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { RequestBoundaryError, RequestBoundaryErrorCode } from './request-boundary.error.js';
import { findUnstorableText } from './storable-text.js';

/**
 * The last line for arguments no HTTP boundary check saw — GraphQL variables of a subscription sent
 * over its WebSocket: text PostgreSQL cannot store is refused naming the argument, before the
 * handler runs. (JSON bodies, params and query strings were checked as they arrived; caller
 * decorators are not input.)
 */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const found = findUnstorableText(value, metadata.data ?? String(metadata.type));
    if (found !== undefined) throw new RequestBoundaryError(RequestBoundaryErrorCode.UnstorableText, found);
    return value;
  }
}
