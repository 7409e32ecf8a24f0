import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../src/db/database';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A dump of a freshly migrated PGlite database; each test file loads its own copy. */
    pgliteTemplate: string;
    /** TEST_DATABASE_URL after migration; each test file clones it as a template. */
    postgresTemplate: string | null;
  }
}

/**
 * Migrates once per run: PGlite's cold start (3–5 s) is paid here, not per file, and the
 * PostgreSQL test database becomes the template every test file clones.
 */
export default async function setup(project: TestProject) {
  // D14: `ledger` runs the compiled CLI; build it from the sources under test, so that tests of
  // real processes never run a stale build.
  execFileSync(process.execPath, ['scripts/build-server.js'], { stdio: 'inherit' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ledger-test-'));
  const pglite = await openPglite(undefined);
  const dump = await pglite.client.dumpDataDir('none');
  await pglite.close();
  const templateFile = path.join(dir, 'template.tar');
  await writeFile(templateFile, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', templateFile);

  const url = process.env.TEST_DATABASE_URL || null;
  if (url) {
    const postgres = await openPostgres(url, { max: 1 });
    await postgres.close();
  }
  project.provide('postgresTemplate', url);

  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
