import { ClarificationError } from './clarification.errors.js';
import type { ResolutionSurface } from './resolve-bundle.service.js';

/** The header with which a REST client says which surface it is: the inbox page sends `web`. */
export const SURFACE_HEADER = 'x-parley-surface';

/** The surface a REST respond is recorded under: `rest`, or `web` when the header says so; anything else is a 400. */
export function surfaceOfRequest(header: string | undefined): Extract<ResolutionSurface, 'rest' | 'web'> {
  if (header === undefined || header === '' || header === 'rest') return 'rest';
  if (header === 'web') return 'web';
  throw ClarificationError.validation(`${SURFACE_HEADER} must be "web" or "rest"`);
}
