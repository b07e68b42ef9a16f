import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's `chromium` package (.ci/run installs it with apt-get when it is missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (install Debian's chromium package, as .ci/run does, or set CHROMIUM_PATH)`;
}

/** `describe`, or `describe.skip` saying why when this machine has no Chromium. */
export function describeInChromium(name: string, body: () => void): void {
  const missing = chromiumMissing();
  if (missing) {
    process.stderr.write(`browser tests skipped: ${missing}\n`);
    describe.skip(`${name} — skipped: ${missing}`, body);
  } else {
    describe(name, body);
  }
}

export interface BrowserSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile (its own --user-data-dir, so no cookie or cache is shared). */
export async function openBrowser(): Promise<BrowserSession> {
  const profile = await mkdtemp(path.join(tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1100, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface BrowserFixture<App> {
  /** What `start` returned, from the first test on. */
  readonly app: App;
  readonly browser: BrowserSession;
  /** This test's page: a new tab in the file's browser, closed after the test. */
  readonly page: Page;
}

/**
 * Registers, in the calling `describe`, one app and one Chromium for its tests and a new page for
 * each test (after `beforeEachPage`, e.g. clearing cookies); everything is closed after.
 */
export function useBrowserPage<App extends { close(): Promise<void> }>(
  start: () => Promise<App>,
  options: { beforeEachPage?: (browser: BrowserSession) => Promise<void> } = {},
): BrowserFixture<App> {
  let app: App | undefined;
  let browser: BrowserSession | undefined;
  let page: Page | undefined;
  const opened = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the browser fixture's ${what} is used before its hook opened it`);
    return value;
  };
  beforeAll(async () => {
    app = await start();
    browser = await openBrowser();
  });
  beforeEach(async () => {
    await options.beforeEachPage?.(opened(browser, 'browser'));
    page = await opened(browser, 'browser').context.newPage();
  });
  afterEach(async () => {
    await page?.close();
    page = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  return {
    get app() {
      return opened(app, 'app');
    },
    get browser() {
      return opened(browser, 'browser');
    },
    get page() {
      return opened(page, 'page');
    },
  };
}

const AXE_SOURCE = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's WCAG 2.x A/AA rules on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(await AXE_SOURCE);
  const violations = await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
  return violations as AxeViolation[];
}

const SCREENSHOTS = path.join(process.cwd(), 'docs', 'screenshots');

/**
 * The README's screenshot docs/screenshots/<name>.png, taken when it is missing or when
 * UPDATE_SCREENSHOTS=1 (so an ordinary run leaves the committed pictures alone).
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  if (existsSync(file) && process.env.UPDATE_SCREENSHOTS !== '1') return;
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
}
