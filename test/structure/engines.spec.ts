/**
 * The Node versions package.json claims are ones every installed production dependency accepts by its
 * own `engines`, and the ones the tests run under: `engines.node` is a subset of each production
 * dependency's range, the pinned `node` devDependency (the Node npm scripts run, tests and `npm start`
 * alike) is inside it, and so is the Node running this test.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const ROOT = process.cwd();

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** Every package `npm ci --omit=dev` installs, with the Node range its own package.json declares. */
function productionRanges(): Array<{ name: string; range: string }> {
  return Object.entries(lock.packages)
    .filter(([location, entry]) => location !== '' && !entry.dev && !entry.devOptional && !entry.link)
    .flatMap(([location, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range ? [{ name: location.replace(/^.*node_modules\//, ''), range }] : [];
    });
}

describe('engines.node tells the truth', () => {
  const claimed = manifest.engines.node;

  it('is a valid range', () => {
    expect(semver.validRange(claimed)).not.toBeNull();
  });

  it("is inside every installed production dependency's own engines.node", () => {
    const ranges = productionRanges();
    // The lock file records engines: if it did not, this test would pass on nothing.
    expect(ranges.length).toBeGreaterThan(50);
    expect(ranges.filter(({ range }) => !semver.subset(claimed, range, { includePrerelease: false }))).toEqual([]);
  });

  it('contains the pinned Node every npm script runs, and the Node running the tests', () => {
    const pinned = manifest.devDependencies.node;
    expect(semver.valid(pinned)).toBe(pinned);
    expect(semver.satisfies(pinned, claimed)).toBe(true);
    expect(process.version).toBe(`v${pinned}`);
  });

  it('claims no older major than the one CI runs (there is no second suite run to prove it)', () => {
    expect(semver.minVersion(claimed)?.major).toBe(semver.major(manifest.devDependencies.node));
  });
});
