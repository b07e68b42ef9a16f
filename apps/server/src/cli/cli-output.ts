import Table from 'cli-table3';

type Cell = string | number | boolean | null | undefined;

/** What a command printed: `json` with --json; otherwise a table of `rows` (one per record). */
export interface CliOutput {
  json: unknown;
  table: { rows: Array<Record<string, Cell>>; empty?: string; footer?: string };
}

export function recordOutput(record: object): CliOutput {
  const rows = Object.entries(record).map(([field, value]) => ({ field, value: typeof value === 'object' && value !== null ? JSON.stringify(value) : (value as Cell) }));
  return { json: record, table: { rows } };
}

export function listOutput(key: string, items: Array<Record<string, Cell>>, nextCursor?: string): CliOutput {
  const json = nextCursor === undefined ? { [key]: items } : { [key]: items, next_cursor: nextCursor };
  return { json, table: { rows: items, empty: `no ${key}`, footer: nextCursor ? `next page: --cursor ${nextCursor}` : undefined } };
}

/** A readable table (cli-table3): a header of the rows' keys, one line per row; long values wrap. */
export function renderTable(table: CliOutput['table']): string {
  if (table.rows.length === 0) return `${table.empty ?? 'nothing to show'}\n`;
  const head = Object.keys(table.rows[0]);
  const width = Math.max(60, process.stdout.columns ?? 120);
  const columnWidth = Math.max(12, Math.floor((width - head.length * 3) / head.length));
  const rendered = new Table({ head, wordWrap: true, wrapOnWordBoundary: false, colWidths: head.map(() => columnWidth), style: { head: [], border: [] } });
  for (const row of table.rows) rendered.push(head.map((key) => (row[key] === null || row[key] === undefined ? '' : String(row[key]))));
  return `${rendered.toString()}\n${table.footer ? `${table.footer}\n` : ''}`;
}
