import { Brackets } from 'typeorm';

/**
 * A timestamp column as a keyset cursor's instant (keyset-cursor.ts: UTC at microsecond precision,
 * what PostgreSQL stores), so the cursor after a row names exactly that row's position.
 */
export function keysetInstantSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The keyset bound every list shares: rows strictly after the cursor position (`at`, `id`), in the
 * list's (timestamp, id) order. The bound is written without `:at IS NULL OR …` — an absent cursor is
 * the lowest position instead — because in the generic plan of a named statement such a disjunction
 * is a filter, not an index condition, and a deep page then walks its keys from their start.
 */
export function keysetAfter(columns: { at: string; id: string }, parameters: { at: string; id: string }): Brackets {
  return new Brackets((query) =>
    query.where(
      `(${columns.at}, ${columns.id}) > (COALESCE(CAST(:${parameters.at} AS timestamptz), '-infinity'), COALESCE(CAST(:${parameters.id} AS text), ''))`,
    ),
  );
}
