import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** docs/benchmarks.md (this file runs as dist/bench/support/report.js). */
export const BENCHMARKS_DOC = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));

/** Collects a benchmark's markdown while printing it. */
export class Report {
  readonly lines: string[] = [];

  say(line = ''): void {
    process.stdout.write(`${line}\n`);
    this.lines.push(line);
  }

  table(header: string[], rows: (string | number)[][], align: ('l' | 'r')[] = []): void {
    this.say(`| ${header.join(' | ')} |`);
    this.say(`|${header.map((_, i) => (align[i] === 'r' ? '---:' : '---')).join('|')}|`);
    for (const row of rows) this.say(`| ${row.join(' | ')} |`);
  }

  code(text: string, language = ''): void {
    this.say(`\`\`\`${language}`);
    for (const line of text.split('\n')) this.say(line);
    this.say('```');
  }

  get markdown(): string {
    return this.lines.join('\n');
  }
}

export function progress(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/**
 * Replaces the generated block of benchmark `name` in docs/benchmarks.md — the text between
 * `<!-- bench:name -->` and `<!-- /bench:name -->` — leaving everything written by hand around it.
 * A block not in the document yet is appended at its end.
 */
export async function writeSection(name: string, markdown: string): Promise<void> {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const doc = await readFile(BENCHMARKS_DOC, 'utf8');
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  const next = from >= 0 && to > from ? `${doc.slice(0, from)}${block}${doc.slice(to + end.length)}` : `${doc.trimEnd()}\n\n${block}\n`;
  await writeFile(BENCHMARKS_DOC, next);
}

/** The machine line every section starts with. */
export async function machineLine(database: string): Promise<string> {
  const os = await import('node:os');
  const load = os.loadavg().map((value) => value.toFixed(1)).join(' / ');
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}; ${database}; load average at the end ${load} (1/5/15 min)`;
}

export function ratioVerdict(value: number, target: number, atMost = true): string {
  const met = atMost ? value <= target : value >= target;
  return met ? 'met' : '**MISSED**';
}
