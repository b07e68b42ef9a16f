/** The SQL of a timestamp as a keyset cursor's instant: UTC at microsecond precision (what PostgreSQL stores). */
export const KEYSET_INSTANT = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

