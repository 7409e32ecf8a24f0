import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openPglite, openPostgres, type Database } from '../../src/db/database';

export type Backend = 'pglite' | 'postgres';
export const BACKENDS: readonly Backend[] = ['pglite', 'postgres'];

export interface TestDatabase extends Database {
  /** For a process under test (the CLI, `serve`): a URL to the same database, PostgreSQL only. */
  url?: string;
}

/** True when the PostgreSQL variants can run (TEST_DATABASE_URL was set for this run). */
export function postgresAvailable(): boolean {
  return inject('postgresTemplate') !== null;
}

/** A fresh, migrated database of its own for one test file. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const dump = await readFile(inject('pgliteTemplate'));
    return openPglite(undefined, { loadDataDir: new Blob([dump]) });
  }
  return cloneTemplateDatabase();
}

async function cloneTemplateDatabase(): Promise<TestDatabase> {
  const templateUrl = inject('postgresTemplate');
  if (!templateUrl) throw new Error('TEST_DATABASE_URL is not set');
  const template = new URL(templateUrl);
  const templateName = decodeURIComponent(template.pathname.slice(1));
  const name = `ledger_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const maintenance = new URL(templateUrl);
  maintenance.pathname = '/postgres';
  const admin = postgres(maintenance.href, { max: 1, onnotice: () => {} });
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
  const database = await openPostgres(url.href);
  return {
    ...database,
    url: url.href,
    async close() {
      await database.close();
      const dropper = postgres(maintenance.href, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
