/**
 * What `npm pack` of packages/client publishes works in a project of its own: the tarball's files
 * unpacked as node_modules/@parley/client of an empty project, its dependency and the frameworks
 * (optional peers) linked from this repository's node_modules (no registry needed), and each entry
 * point of the exports map imported by plain Node from there.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO = process.cwd();

describe('the packed client', () => {
  it('installs into an empty project and its four entry points import there', async () => {
    const project = await mkdtemp(path.join(tmpdir(), 'parley-pack-'));
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: path.join(REPO, 'packages/client') });
    const tarball = path.join(project, stdout.trim().split('\n').at(-1) ?? '');
    const installed = path.join(project, 'node_modules', '@parley', 'client');
    await mkdir(installed, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    for (const dependency of ['openapi-fetch', 'canonicalize', 'jose', 'ai', '@openai/agents', '@langchain/langgraph', '@langchain/core']) {
      await mkdir(path.dirname(path.join(project, 'node_modules', dependency)), { recursive: true });
      await symlink(path.join(REPO, 'node_modules', dependency), path.join(project, 'node_modules', dependency));
    }
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'empty', type: 'module', private: true }));
    await writeFile(
      path.join(project, 'probe.mjs'),
      `const entries = {};
       for (const entry of ['@parley/client', '@parley/client/ai-sdk', '@parley/client/openai-agents', '@parley/client/langgraph']) entries[entry] = Object.keys(await import(entry)).sort();
       process.stdout.write(JSON.stringify(entries));`,
    );
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const probe = await run(process.execPath, ['probe.mjs'], { cwd: project, env });
    expect(JSON.parse(probe.stdout)).toEqual({
      '@parley/client': expect.arrayContaining(['Parley', 'BundleHandle', 'FileResumeLedger', 'ParleyError', 'ParleyNotFoundError', 'createResumeReceiver', 'verifyReceipt']),
      '@parley/client/ai-sdk': expect.arrayContaining(['withParleyApproval', 'runWithApprovals', 'askHumanTool']),
      '@parley/client/openai-agents': expect.arrayContaining(['runWithParley', 'resumeStoredRuns', 'FileRunStateStore']),
      '@parley/client/langgraph': expect.arrayContaining(['askHuman', 'driveThread']),
    });
    // Only the build and the package's own files are published: no sources, no specs.
    const { stdout: listing } = await run('tar', ['-tzf', tarball]);
    const files = listing.split('\n').filter(Boolean);
    expect(files.every((file) => file === 'package/package.json' || file === 'package/README.md' || file.startsWith('package/dist/'))).toBe(true);
    expect(files.some((file) => file.includes('.spec.'))).toBe(false);
  });
});
