import { describe, expect, it } from 'vitest';
import * as locks from '../src/db/locks';

// Issue 36 item 7: one registry of advisory-lock keys (src/db/locks.ts), and no literal elsewhere.

describe('advisory-lock keys (issue 36 item 7)', () => {
  const keys = Object.entries(locks).flatMap(([name, value]) => (typeof value === 'number' ? [[name, value] as const] : []));

  it('names at least the locks the service takes', () => {
    expect(keys.map(([name]) => name).sort()).toEqual(
      expect.arrayContaining(['ATTACHMENTS_LOCK', 'CLIENT_REGISTRATION_LOCK', 'CLOSED_THROUGH_LOCK', 'DAY_TOTALS_COMPACTION_LOCK', 'EMBEDDED_SERVE_LOCK', 'EMBEDDED_USE_LOCK', 'IMPORT_LOCK', 'MIGRATION_LOCK', 'RECONCILIATION_LOCK']),
    );
  });

  it('gives every lock its own key', () => {
    const byValue = new Map<number, string[]>();
    for (const [name, value] of keys) byValue.set(value, [...(byValue.get(value) ?? []), name]);
    const shared = [...byValue.values()].filter((names) => names.length > 1);
    expect(shared, `advisory-lock keys shared by: ${JSON.stringify(shared)}`).toEqual([]);
  });

  it('keeps every key a 32-bit integer, so it fits both pg_advisory_lock(bigint) and the (int, int) pair', () => {
    for (const [name, value] of keys) expect(Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31, name).toBe(true);
  });

  it('keeps the key the triggers of drizzle/0008 take (D20): changing it needs a migration', async () => {
    const { readFile } = await import('node:fs/promises');
    const migration = await readFile(new URL('../drizzle/0008_reconciled_and_closed_locks.sql', import.meta.url), 'utf8');
    const taken = [...migration.matchAll(/pg_advisory_xact_lock_shared\((\d+)\)/g)].map((m) => Number(m[1]));
    expect(taken.length).toBeGreaterThan(0);
    for (const key of taken) expect(key).toBe(locks.CLOSED_THROUGH_LOCK);
  });

  it('takes no advisory lock under a literal key anywhere in src/ (issue 36 item 7)', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const root = new URL('../src/', import.meta.url);
    const files = (await readdir(root, { recursive: true })).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('db/locks.ts'));
    // A number inside the call, or a key constant of its own.
    const literal = /pg_(?:try_)?advisory_(?:xact_)?(?:un)?lock(?:_shared)?\(\s*-?\d|const \w*_LOCK(?:_KEY)? = -?(?:0x)?\d/;
    const offenders: string[] = [];
    for (const file of files) if (literal.test(await readFile(new URL(file, root), 'utf8'))) offenders.push(file);
    expect(offenders).toEqual([]);
  });
});
