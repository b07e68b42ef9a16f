import { ClarificationError } from './clarification.errors.js';

/** Where a resolution came from: recorded on the winner's rows, in the audit trail and in metrics. */
export type ResolutionSurface = 'rest' | 'mcp' | 'graphql' | 'command' | 'web';

/** The header with which a REST client says which surface it is: the inbox page sends `web`. */
export const SURFACE_HEADER = 'x-parley-surface';

/** The surface a REST respond is recorded under: `rest`, or `web` when the header says so; anything else is a 400. */
export function surfaceOfRequest(header: string | undefined): Extract<ResolutionSurface, 'rest' | 'web'> {
  if (header === undefined || header === '' || header === 'rest') return 'rest';
  if (header === 'web') return 'web';
  throw ClarificationError.validation(`${SURFACE_HEADER} must be "web" or "rest"`);
}
