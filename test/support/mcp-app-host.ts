import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir } from './server-process.js';
import type { V2Connection } from './mcp-v2.js';

const ROOT = process.cwd();

/** The host page's script, built once per test file with vite from test/support/mcp-app-host/host.mjs. */
export async function buildAppHost(): Promise<string> {
  const out = await tempDir('parley-app-host-');
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  const env = { ...process.env, NODE_OPTIONS: '', PARLEY_HOST_OUT: out };
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [vite, 'build', '--config', 'test/support/mcp-app-host/vite.config.mjs'], { cwd: ROOT, env }, (error, _stdout, stderr) =>
      error ? reject(new Error(`the app host did not build: ${stderr}`)) : resolve(),
    ),
  );
  return readFile(path.join(out, 'host.js'), 'utf8');
}

/**
 * A small MCP Apps host in `page`: each app instance is ext-apps' AppBridge and a sandboxed frame;
 * its tool calls go to `connections[id]` (a person's own MCP connection to Parley's /mcp).
 */
export async function openAppHost(page: Page, hostScript: string, connections: Record<string, V2Connection>): Promise<void> {
  await page.exposeFunction('parleyCallTool', (id: string, name: string, args: Record<string, unknown>) => {
    const connection = connections[id];
    if (connection === undefined) throw new Error(`no MCP connection for app ${id}`);
    return connection.client.callTool({ name, arguments: args });
  });
  await page.setContent('<!doctype html><html lang="en"><head><title>Test MCP Apps host</title></head><body></body></html>');
  await page.addScriptTag({ content: hostScript });
}

/** Shows instance `id` of the app: the page `html` (the ui:// resource as read), handed `toolResult`. */
export async function showApp(page: Page, id: string, html: string, toolResult: unknown): Promise<void> {
  await page.evaluate(
    ([appId, page, result]) => (globalThis as unknown as { showApp(id: string, html: string, result: unknown): Promise<void> }).showApp(appId, page, result),
    [id, html, toolResult] as const,
  );
}
