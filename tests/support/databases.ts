import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openConnection, openPostgres, type Database } from '../../src/db/database';

/** The run's embedded cluster (always), and TEST_DATABASE_URL's server when it is set. */
export type Backend = 'embedded' | 'postgres';
export const BACKENDS: readonly Backend[] = ['embedded', 'postgres'];

export interface TestDatabase extends Database {
  /** For a process under test (the CLI, `serve`): a URL to the same database. */
  url: string;
}

/** True when the PostgreSQL variants can run (TEST_DATABASE_URL was set for this run). */
export function postgresAvailable(): boolean {
  return inject('postgresTemplate') !== null;
}

/** A fresh, migrated database of its own for one test file, cloned from the backend's template. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  const templateUrl = backend === 'embedded' ? inject('embeddedTemplate') : inject('postgresTemplate');
  if (!templateUrl) throw new Error('TEST_DATABASE_URL is not set');
  return cloneTemplateDatabase(templateUrl, backend);
}

async function cloneTemplateDatabase(templateUrl: string, backend: Backend): Promise<TestDatabase> {
  const template = new URL(templateUrl);
  const templateName = decodeURIComponent(template.pathname.slice(1));
  const name = `ledger_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const maintenance = new URL(templateUrl);
  maintenance.pathname = '/postgres';
  const admin = openConnection(maintenance.href);
  try {
    // Cloning a template refuses while another clone of it is in progress: retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database "${name}" template "${templateName.replaceAll('"', '""')}"`);
        break;
      } catch (error) {
        if (attempt >= 20 || (error as { code?: string }).code !== '55006') throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.href, { backend });
  return {
    ...database,
    url: url.href,
    async close() {
      await database.close();
      const dropper = openConnection(maintenance.href);
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
