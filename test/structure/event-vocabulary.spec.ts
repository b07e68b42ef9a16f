/**
 * One vocabulary for what happens to a bundle: the question events (durable, in the database) and the
 * bundle signals (their NOTIFY, heard by every replica). No in-process event bus beside them — a bus
 * reaches only its own process, so a subscriber on it misses what another replica did, and its event
 * names drift from the two that are kept. Checked on the source, as a dormant bus would pass any
 * behavioural test.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const SCANNED = ['libs', 'apps', 'test', 'bench', 'scripts'];
const SKIPPED = new Set(['node_modules', 'dist', 'generated']);
const THIS_FILE = 'test/structure/event-vocabulary.spec.ts';

/**
 * The one in-process emitter allowed: the question-event feed hands each batch it read from the
 * database to the subscriber streams open in this process (it carries question event rows, no names
 * of its own).
 */
const FEED_FAN_OUT = new Set(['libs/clarification/src/events/question-event.service.ts', 'libs/clarification/src/events/question-event.stream.ts']);
/** The lifecycle metric's label values are spelled in one place, beside the counter that uses them. */
const LIFECYCLE_LABELS = 'libs/clarification/src/events/lifecycle-event.counter.ts';

const BUS_NAMES = /\b(EventBus|EventBusModule|PARLEY_EVENT_NAMES|ParleyEvents|ParleyEventName)\b/;
const EMITTERS = /from ['"](node:)?events['"]|@nestjs\/event-emitter|\bnew Subject\b|\bextends EventEmitter\b/;
const LABEL_LITERAL = /['"`](clarification|session)\.[a-z_]+(\.[a-z_]+)*['"`]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|mjs|js)$/.test(name) ? [full] : [];
  });
}

/** Every rule a source file breaks, as `path: rule`. */
function violations(file: string, text: string): string[] {
  const found: string[] = [];
  if (/event-bus/i.test(path.basename(file))) found.push(`${file}: an event-bus file`);
  if (BUS_NAMES.test(text)) found.push(`${file}: names an in-process event bus (${BUS_NAMES.exec(text)?.[0]})`);
  const production = !file.startsWith('test/') && !file.startsWith('bench/') && !file.startsWith('scripts/') && !/\.spec\.ts$/.test(file);
  if (production && EMITTERS.test(text) && !FEED_FAN_OUT.has(file)) found.push(`${file}: an in-process event emitter (${EMITTERS.exec(text)?.[0]})`);
  if (production && LABEL_LITERAL.test(text) && file !== LIFECYCLE_LABELS) found.push(`${file}: a lifecycle event name outside ${LIFECYCLE_LABELS} (${LABEL_LITERAL.exec(text)?.[0]})`);
  return found;
}

describe('one event vocabulary (structure)', () => {
  const files = SCANNED.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).map((file) => path.relative(ROOT, file).split(path.sep).join('/'));

  it('sees the sources, the feed and the counter', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toEqual(expect.arrayContaining([...FEED_FAN_OUT, LIFECYCLE_LABELS]));
  });

  it('finds a bus, a second emitter or a stray event name when there is one (the detector itself)', () => {
    expect(violations('libs/common/src/event-bus.ts', 'export class Bus {}')).toHaveLength(1);
    expect(violations('libs/tasks/src/a.service.ts', 'constructor(private readonly events: EventBus) {}')).toHaveLength(1);
    expect(violations('libs/tasks/src/a.service.ts', "import { EventEmitter } from 'node:events';")).toHaveLength(1);
    expect(violations('libs/tasks/src/a.service.ts', "import { EventEmitter2 } from '@nestjs/event-emitter';")).toHaveLength(1);
    expect(violations('libs/tasks/src/a.service.ts', "metrics.lifecycleEvent('clarification.requested');")).toHaveLength(1);
    expect(violations('test/e2e/a.e2e-spec.ts', "import { EventEmitter } from 'node:events';")).toEqual([]);
    expect(violations(LIFECYCLE_LABELS, "const ASKED = 'clarification.requested';")).toEqual([]);
  });

  it('no in-process event bus, no other emitter than the feed fan-out, lifecycle event names in one file', () => {
    const found = files.filter((file) => file !== THIS_FILE).flatMap((file) => violations(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
