import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Encrypter } from 'age-encryption';

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

/**
 * A version 2 backup as anyone who can write the file can remake it (issue 26 item 7, issue 36
 * item 3): its lines edited, then the trailer's checksum computed again over the new bytes, so
 * that only what the edit changes can be what a restore refuses.
 */
export function rewrittenBackup(from: string, to: string, edit: (lines: Json[]) => void): string {
  const lines = backupLines(from);
  edit(lines);
  const trailer = lines.pop()!;
  const body = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  trailer.sha256 = createHash('sha256').update(body).digest('hex');
  writeFileSync(to, `${body}${JSON.stringify(trailer)}\n`);
  return to;
}

/**
 * A file sealed in an age file with a passphrase by the age library itself (not by `ledger backup`),
 * scrypt at 2^logN: how `age -p` (2^18) or an older Ledger (2^15) wrote it.
 */
export async function sealedWithAge(from: string, to: string, passphrase: string, logN: number): Promise<string> {
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  encrypter.setScryptWorkFactor(logN);
  writeFileSync(to, await encrypter.encrypt(readFileSync(from)));
  return to;
}

/** The log2 N of an age file's scrypt stanza (`-> scrypt <salt> <log2 N>`, the header's second line). */
export function scryptWorkFactor(file: string): number {
  const stanza = /^age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22} (\d+)\n/.exec(readFileSync(file).subarray(0, 200).toString('latin1'));
  if (!stanza) throw new Error(`${file} has no scrypt stanza`);
  return Number(stanza[1]);
}
