import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

// Backup files as tests take them apart and write older ones (D14, D22): a version 2 backup's rows
// by table, and a version 1 backup written from rows, as the version 1 writer wrote it.

type Json = Record<string, unknown>;

/** The lines of a version 2 backup, parsed. */
export const backupLines = (file: string): Json[] =>
  readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').map((l) => JSON.parse(l) as Json);

/** A version 2 backup's rows by table (every table its trailer counts), receipts' bytes left out. */
export function rowsByTable(file: string): Record<string, Json[]> {
  const lines = backupLines(file);
  const rows: Record<string, Json[]> = Object.fromEntries(Object.keys(lines.at(-1)!.counts as Json).map((t) => [t, []]));
  for (const line of lines) if (typeof line.table === 'string') rows[line.table]!.push(...(line.rows as Json[]));
  return rows;
}

/** A version 1 backup of `rows`: a header with counts and the checksum of line 2 (D14). */
export function writeVersion1(file: string, schema: number, rows: Record<string, Json[]>): string {
  const body = JSON.stringify(rows);
  const counts = Object.fromEntries(Object.entries(rows).map(([t, r]) => [t, r.length]));
  const header = { format: 'ledger-backup', version: 1, schema, created_at: new Date().toISOString(), counts, sha256: createHash('sha256').update(body).digest('hex') };
  writeFileSync(file, `${JSON.stringify(header)}\n${body}\n`);
  return file;
}
