import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// D1: Node 20. Issue 25 item 13: `npm ci` printed 225 EBADENGINE warnings, @scalar/api-reference
// 1.72 and its @scalar/* packages declaring Node >= 22. No installed package may declare an
// engine that the Node 20 we run on, or the oldest Node our package.json admits, does not satisfy.

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
  scripts?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

/** Every package.json of an installed package under node_modules (nested node_modules included). */
function installedManifests(root: string): Array<{ file: string; manifest: Manifest }> {
  const found: Array<{ file: string; manifest: Manifest }> = [];
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const here = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(here);
        continue;
      }
      const file = path.join(here, 'package.json');
      if (existsSync(file)) found.push({ file, manifest: JSON.parse(readFileSync(file, 'utf8')) as Manifest });
      visit(path.join(here, 'node_modules'));
    }
  };
  visit(root);
  return found;
}

describe('D1: every installed package runs on Node 20 (issue 25 item 13: no EBADENGINE)', () => {
  const ours = (JSON.parse(readFileSync('package.json', 'utf8')) as Manifest).engines?.node;
  const oldest = semver.minVersion(String(ours));

  it('package.json admits Node 20 only from a release on', () => {
    expect(ours, 'package.json engines.node').toMatch(/^>=20\.\d+$/);
    expect(oldest?.major).toBe(20);
    expect(semver.major(process.version), 'the suite runs on Node 20 (D1)').toBe(20);
  });

  it('no package in node_modules declares an engines.node that this Node or the oldest Node 20 we admit does not satisfy', () => {
    const manifests = installedManifests('node_modules');
    expect(manifests.length).toBeGreaterThan(100);
    const refused = manifests.flatMap(({ file, manifest }) => {
      const range = manifest.engines?.node;
      if (typeof range !== 'string') return [];
      const fails = [process.version, oldest!.version].filter((node) => !semver.satisfies(node, range, { includePrerelease: true }));
      return fails.length ? [`${manifest.name}@${manifest.version} wants node ${range} (${path.dirname(file)}; not ${fails.join(', ')})`] : [];
    });
    expect(refused).toEqual([]);
  });
});

// Issue 37 item 13: `npm ci` ended with 6 "install-scripts" warnings (esbuild, vue-demi): npm 11
// names every dependency whose install script allowScripts neither allows nor denies. Each one is
// decided in package.json, so a fresh install prints none.
describe('npm 11: every dependency install script is decided in allowScripts (issue 37 item 13)', () => {
  it('no installed package has a preinstall, install or postinstall script that allowScripts leaves undecided', () => {
    const decided = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as Manifest).allowScripts ?? {});
    const covers = (name: string, version: string) => decided.some((key) => key === name || key === `${name}@${version}`);
    const undecided = installedManifests('node_modules').flatMap(({ manifest }) => {
      const scripts = Object.keys(manifest.scripts ?? {}).filter((s) => ['preinstall', 'install', 'postinstall'].includes(s));
      if (!scripts.length || !manifest.name || covers(manifest.name, String(manifest.version))) return [];
      return [`${manifest.name}@${manifest.version} (${scripts.join(', ')})`];
    });
    expect([...new Set(undecided)]).toEqual([]);
  });
});
