/**
 * A timestamp column as a keyset cursor's instant (keyset-cursor.ts: UTC at microsecond precision,
 * what PostgreSQL stores), so the cursor after a row names exactly that row's position.
 */
export function keysetInstantSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
