import { type CursorPosition, decodeCursor, encodeCursor } from './keyset-cursor.js';

/**
 * The one page-size rule of every paged list (tasks, workspaces, audit trail, delivery log, a
 * session's messages): `limit` absent ⇒ the default; an integer from 1 to the maximum ⇒ itself;
 * anything else (0, negative, fractional, above the maximum) is refused naming `limit` — never
 * clamped. The pending-question list is the one exception (rule L10 clamps), and keeps its own rule.
 */
export const LIST_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;

/** What a caller asks a paged list for (GraphQL passes null for an argument given as null). */
export interface PageInput {
  limit?: number | null;
  cursor?: string | null;
}

export interface PageRequest {
  limit: number;
  /** The position after which the page starts; undefined for the first page. */
  after: CursorPosition | undefined;
}

/** The page size `limit` asks for, or undefined when the rule refuses it. */
export function pageLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return LIST_PAGE.defaultLimit;
  return Number.isInteger(limit) && limit >= 1 && limit <= LIST_PAGE.maxLimit ? limit : undefined;
}

/**
 * The page a caller asks for, or the error `invalid` makes naming the refused argument. An absent or
 * empty cursor (the `next_cursor` of a last page) starts from the beginning; any other cursor must be
 * exactly one the codec made.
 */
export function readPageRequest(input: PageInput, invalid: (message: string) => Error): PageRequest {
  const limit = pageLimit(input.limit ?? undefined);
  if (limit === undefined) throw invalid(`limit must be an integer from 1 to ${LIST_PAGE.maxLimit}`);
  if (input.cursor === undefined || input.cursor === null || input.cursor === '') return { limit, after: undefined };
  const after = decodeCursor(input.cursor);
  if (!after) throw invalid('cursor is invalid');
  return { limit, after };
}

/** The rows of a page read with LIMIT `limit + 1`, and the cursor after its last row ("" when none follows). */
export function pageOf<Row>(rows: Row[], limit: number, position: (row: Row) => CursorPosition): { rows: Row[]; next_cursor: string } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : '' };
}
