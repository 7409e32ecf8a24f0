import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openConnection, openPostgres } from '../../src/db/database';
import { openEmbedded } from '../../src/db/embedded';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated template database in the run's embedded cluster; each test file clones it. */
    embeddedTemplate: string;
    /** TEST_DATABASE_URL after migration; each test file clones it as a template. */
    postgresTemplate: string | null;
  }
}

/** The template every test file clones, beside the cluster's own `ledger` database. */
const TEMPLATE = 'ledger_template';

/**
 * Once per run: builds the compiled CLI, starts one embedded cluster (D2) and migrates a template
 * database in it, and migrates TEST_DATABASE_URL when it is set. Test files clone the templates.
 */
export default async function setup(project: TestProject) {
  // D14: `ledger` runs the compiled CLI; build it from the sources under test, so that tests of
  // real processes never run a stale build.
  execFileSync(process.execPath, ['scripts/build-server.js'], { stdio: 'inherit' });

  const root = await mkdtemp(path.join(os.tmpdir(), 'ledger-test-'));
  // As root the cluster runs as the user postgres, which must be able to enter the directory.
  await chmod(root, 0o755);
  const cluster = await openEmbedded(path.join(root, 'data'), 'serve');
  const templateUrl = new URL(cluster.url);
  templateUrl.pathname = `/${TEMPLATE}`;
  const admin = openConnection(cluster.url);
  await admin.unsafe(`create database ${TEMPLATE}`);
  await admin.end();
  await (await openPostgres(templateUrl.href, { max: 1 })).close();
  project.provide('embeddedTemplate', templateUrl.href);

  const url = process.env.TEST_DATABASE_URL || null;
  if (url) await (await openPostgres(url, { max: 1 })).close();
  project.provide('postgresTemplate', url);

  return async () => {
    await cluster.release();
    await rm(root, { recursive: true, force: true });
  };
}
