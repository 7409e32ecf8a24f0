import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/pg-core';
import { AGE_FIRST_LINE, decryptChunks, encryptChunks } from './backup-crypto';
import { refuseShortPassphrase } from './passphrase';
import { MIGRATIONS_FOLDER, rowsOf, sqlConstraint, sqlMessage, sqlState, transactionCursorRows, type Db } from '../db/database';
import { attachments } from '../db/schema';
import { invalid, Refusal } from '../errors';

/**
 * D14 and D22: `ledger backup` and `ledger restore`. The file, documented in the README (Backups):
 *
 * Version 2, written and read as a stream (D22: a backup with 1 GiB of receipts holds a few MiB in
 * memory, never the book), one JSON object per line:
 *
 *   {"format":"ledger-backup","version":2,"schema":…,"created_at":"…","encrypted":false}
 *   {"table":"users","rows":[…]}                       as many lines per table as it takes, parents first
 *   {"table":"attachments","rows":[{…without bytes}]}  one line per receipt, then its bytes:
 *   {"attachment":7,"bytes":"<base64>"}                 768 KiB of them per line, in order
 *   {"end":"ledger-backup","counts":{…},"sha256":"…"}  the hex SHA-256 of every byte before this line
 *
 * Rows are PostgreSQL's row_to_json. The checksum is unkeyed: it finds damage (a cut or a changed
 * byte), not tampering, which only an encrypted backup finds: the same bytes inside an age file
 * (backup-crypto.ts), whose header then says `"encrypted":true`.
 *
 * Version 1 (before receipts) is one header line {…, "version":1, "counts", "sha256"} and one line
 * with every table's rows; it still restores, read whole as it was written.
 *
 * `schema` is the number of migrations the database had. Rows keep their ids. Secrets are stored
 * as the database keeps them: password hashes, token digests, passkeys' public keys; never a
 * plaintext secret. Sessions, codes, device grants and the login throttle are left out
 * (short-lived; a restored instance starts with everybody signed out).
 */
const FORMAT = 'ledger-backup';
const VERSION = 2;

/**
 * The tables, in an order that inserts parents first. `where` keeps only what is live: a refresh
 * token retired by rotation or a revoked or expired token is of no use after a restore.
 */
const TABLES = [
  { name: 'users', key: 'id' },
  { name: 'oauth_clients', key: 'id' },
  { name: 'passkeys', key: 'id' },
  // D25; backups made before grants (schema 10 and earlier) get one per refresh token (grantsOfOldTokens).
  { name: 'grants', key: 'id', since: 11, where: 'revoked_at is null' },
  { name: 'tokens', key: 'hash', where: 'revoked_at is null and retired_at is null and expires_at > now()' },
  { name: 'accounts', key: 'id' },
  { name: 'settings', key: 'id' },
  { name: 'transactions', key: 'id' },
  { name: 'entries', key: 'id' },
  // D15; backups made before the change log (schema 4 and earlier) have none.
  { name: 'changes', key: 'id', since: 5 },
  // D16; backups made before imports (schema 5 and earlier) have none.
  { name: 'import_rules', key: 'id', since: 6 },
  { name: 'import_references', key: 'reference', since: 6 },
  // D20 and D16; backups made before reconciliation (schema 7 and earlier) have none.
  { name: 'reconciliations', key: 'id', since: 8 },
  { name: 'import_lines', key: 'id', since: 8 },
  // D21; backups made before schedules (schema 11 and earlier) have none. Every occurrence posted or
  // skipped comes along, so a restored book never posts one twice.
  { name: 'schedules', key: 'id', since: 12 },
  { name: 'schedule_occurrences', key: ['schedule_id', 'occurs_on'], since: 12 },
  // D22; backups made before receipts (schema 12 and earlier, and every version 1 file) have none.
  { name: 'attachments', key: 'id', since: 13 },
  // D26; backups made before budgets (schema 17 and earlier) have none.
  { name: 'budgets', key: 'id', since: 18 },
  { name: 'budget_lines', key: ['budget_id', 'position'], since: 18 },
  // D27; backups made before people (schema 18 and earlier) have none. Plans before people before
  // the dues occurrences handled, so a restored book never charges an occurrence twice.
  { name: 'dues_plans', key: 'id', since: 19 },
  { name: 'people', key: 'id', since: 19 },
  { name: 'dues_occurrences', key: ['plan_id', 'person_id', 'occurs_on'], since: 19 },
  // D27's direct debit; backups made before it (schema 19 and earlier) have none.
  { name: 'direct_debits', key: 'id', since: 20 },
  { name: 'direct_debit_items', key: ['direct_debit_id', 'position'], since: 20 },
] as const;

/** The tables whose ids come from a sequence (identity columns), moved past the restored ids. */
const SEQUENCED: readonly TableName[] = ['users', 'passkeys', 'accounts', 'transactions', 'entries', 'changes', 'import_rules', 'reconciliations', 'import_lines', 'schedules', 'attachments', 'budgets', 'dues_plans', 'people'];

type TableName = (typeof TABLES)[number]['name'];
type Row = Record<string, unknown>;
type Rows = Record<TableName, Row[]>;
type Counts = Record<TableName, number>;

interface Header {
  format: typeof FORMAT;
  version: number;
  schema: number;
  created_at: string;
  /** Version 2: whether the file was written inside an age file. */
  encrypted?: boolean;
  /** Version 1 only. */
  counts?: Counts;
  sha256?: string;
}

interface Trailer {
  end: typeof FORMAT;
  counts: Counts;
  sha256: string;
}

/** Rows per cursor fetch, and the size a line of rows is closed at (a larger row is a line alone). */
const ROWS_PER_FETCH = 200;
const LINE_BYTES = 1 << 20;
/** A receipt's bytes per line: a multiple of 3, so that each line is 1 MiB of base64 without padding. */
const PIECE_BYTES = 768 * 1024;
/** No line of ours comes near this (a row of the book is at most a few MiB): a longer one is damage. */
const MAX_LINE_BYTES = 32 << 20;
/** How many bytes go by between two collections of the garbage they leave (see `collecting`). */
const COLLECT_EVERY_BYTES = 2 << 20;
/** A header line is short; a file whose first line is not is no backup. */
const MAX_HEADER_BYTES = 64 << 10;
/** How much of the file is read at a time. */
const READ_BYTES = 64 << 10;

/**
 * D22's budget (64 MiB above idle for a backup or restore of any size) is kept by collecting the
 * garbage the stream leaves every COLLECT_EVERY_BYTES. Each MiB of receipt that goes by leaves a
 * few MiB of dead strings and Buffers (the driver's message, its text, our line), and V8 lets
 * external memory grow by 64 MiB before it collects. Measured with scripts/bench-backup-memory.ts:
 * without this, 82 MiB above idle for a backup of only 57 MiB of receipts; with it, for 1 GiB,
 * 23 MiB (backup), 28 (restore). Encrypted, scrypt's 128 MiB at the start (2^17, issue 36) is the
 * peak: 134 and 136 over 95 MiB of receipts, the stream after it no dearer than plain. `gc` is
 * exposed at run time and taken from a new context, as jest's leak detector does: the CLI needs
 * no Node flag.
 */
function collecting(): (bytes: number) => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // The first call collects at once: what came before the stream (scrypt's 128 MiB) is gone before it flows.
  let since = COLLECT_EVERY_BYTES;
  return (bytes) => {
    since += bytes;
    if (since < COLLECT_EVERY_BYTES) return;
    since = 0;
    gc();
  };
}

const zeroCounts = (): Counts => Object.fromEntries(TABLES.map((t) => [t.name, 0])) as Counts;
const describeCounts = (counts: Partial<Counts>) => TABLES.map((t) => `${counts[t.name] ?? 0} ${t.name}`).join(', ');
const isTable = (name: unknown): name is TableName => TABLES.some((t) => t.name === name);

/** How many migrations this build knows (drizzle's journal): a backup's `schema` may not exceed it. */
function knownMigrations(): number {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * Writes the backup to `file`, 0600, through a temporary file beside it, fsync and a rename, so
 * that a reader never sees half a backup and an existing file is replaced whole; encrypted with
 * `passphrase` when one is given (D22). Everything is read in one repeatable-read, read-only
 * transaction (one consistent snapshot) and streamed to the file. Returns what it wrote.
 */
export async function writeBackup(db: Db, file: string, passphrase: string | null = null): Promise<string> {
  if (passphrase !== null) refuseShortPassphrase(passphrase);
  const target = path.resolve(file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': a new file of our own, never through a symlink someone planted.
  const handle = await open(temporary, 'wx', 0o600);
  let counts: Counts;
  try {
    counts = await db.transaction(
      async (tx) => {
        const counts = zeroCounts();
        const collect = collecting();
        const lines = backupLines(tx, passphrase !== null, counts);
        for await (const chunk of passphrase === null ? lines : encryptChunks(lines, passphrase)) {
          await writeAll(handle, chunk);
          collect(chunk.length);
        }
        return counts;
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    await handle.sync();
  } catch (error) {
    await handle.close();
    rmSync(temporary, { force: true });
    throw error;
  }
  await handle.close();
  renameSync(temporary, target);
  return `wrote ${target}: ${describeCounts(counts)}`;
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) offset += (await handle.write(chunk, offset)).bytesWritten;
}

/** The lines of a version 2 backup, each with its newline; `counts` fills as rows go by. */
async function* backupLines(tx: Db, encrypted: boolean, counts: Counts): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  const hashed = (text: string) => {
    const line = Buffer.from(`${text}\n`);
    hash.update(line);
    return line;
  };
  const header: Header = { format: FORMAT, version: VERSION, schema: knownMigrations(), created_at: new Date().toISOString(), encrypted };
  yield hashed(JSON.stringify(header));
  for (const table of TABLES) {
    const lines = table.name === 'attachments' ? attachmentLines(tx, counts) : rowLines(tx, table, counts);
    for await (const text of lines) yield hashed(text);
  }
  const trailer: Trailer = { end: FORMAT, counts, sha256: hash.digest('hex') };
  yield Buffer.from(`${JSON.stringify(trailer)}\n`);
}

/** A table's rows, `{"table":…,"rows":[…]}` lines of about LINE_BYTES at most. */
async function* rowLines(tx: Db, table: (typeof TABLES)[number], counts: Counts): AsyncGenerator<string> {
  const filter = 'where' in table ? sql.raw(`where ${table.where}`) : sql``;
  const order = sql.join([table.key].flat().map((k) => sql`t.${sql.identifier(k)}`), sql`, `);
  const statement = sql`select row_to_json(t)::text as row from ${sql.identifier(table.name)} t ${filter} order by ${order}`;
  const start = `{"table":${JSON.stringify(table.name)},"rows":[`;
  let pending: string[] = [];
  let size = 0;
  for await (const batch of transactionCursorRows<{ row: string }>(tx, statement, ROWS_PER_FETCH)) {
    for (const { row } of batch) {
      if (pending.length > 0 && size + row.length > LINE_BYTES) {
        yield `${start}${pending.join(',')}]}`;
        pending = [];
        size = 0;
      }
      pending.push(row);
      size += row.length + 1;
      counts[table.name]++;
    }
  }
  if (pending.length > 0) yield `${start}${pending.join(',')}]}`;
}

/** Every column of `attachments` but its bytes, which go in lines of their own. */
const ATTACHMENT_COLUMNS = getTableConfig(attachments).columns.map((c) => c.name).filter((name) => name !== 'bytes');

/**
 * D22: each receipt as a line of its row without the bytes, then its bytes in base64 lines of
 * PIECE_BYTES each, cut by the database (one query per piece, in the same snapshot): no receipt is
 * ever whole in this process, and the server sorts nothing.
 */
async function* attachmentLines(tx: Db, counts: Counts): AsyncGenerator<string> {
  const columns = sql.join(ATTACHMENT_COLUMNS.map((c) => sql`a.${sql.identifier(c)}`), sql`, `);
  const receipts = sql`
    select a.id, octet_length(a.bytes) as size, (select row_to_json(r) from (select ${columns}) r)::text as row
    from attachments a order by a.id`;
  for await (const batch of transactionCursorRows<{ id: number; size: number; row: string }>(tx, receipts, ROWS_PER_FETCH)) {
    for (const receipt of batch) {
      yield `{"table":"attachments","rows":[${receipt.row}]}`;
      counts.attachments++;
      for (let start = 0; start < receipt.size; start += PIECE_BYTES) {
        const [piece] = rowsOf<{ bytes: string }>(
          await tx.execute(sql`
            select replace(encode(substring(bytes from ${start + 1} for ${PIECE_BYTES}), 'base64'), E'\n', '') as bytes
            from attachments where id = ${receipt.id}`),
        );
        yield `{"attachment":${receipt.id},"bytes":"${piece!.bytes}"}`;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Why a file is refused, in one sentence each. */
const notABackup = (file: string) => invalid(`${file} is not a Ledger backup`);
const damaged = (file: string, what: string) => invalid(`${file} is damaged (truncated or altered): ${what}`);
const newer = (file: string, header: Header) =>
  invalid(`${file} was made by a newer Ledger (backup format ${header.version}, schema ${header.schema}); restore it with that version`);
const plainRefused = (file: string) =>
  invalid(
    `${file} is a plain backup (neither encrypted nor authenticated), but a passphrase is set (LEDGER_BACKUP_PASSPHRASE): ` +
      'anyone who could write to the file could have made it; if you made it yourself, restore it with --allow-plain',
  );

/** Whether a file starts like an age file: `ledger restore` then needs the passphrase. */
export async function isEncryptedBackup(file: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false;
  }
  try {
    const start = Buffer.alloc(AGE_FIRST_LINE.length);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    return start.subarray(0, bytesRead).toString('latin1') === AGE_FIRST_LINE;
  } finally {
    await handle.close();
  }
}

/** A file's bytes as they are read, a READ_BYTES chunk at a time. */
async function* fileChunks(handle: FileHandle): AsyncGenerator<Uint8Array> {
  for (;;) {
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, READ_BYTES, null);
    if (bytesRead === 0) return;
    yield chunk.subarray(0, bytesRead);
  }
}

/** Lines of a stream of bytes, without their newline, as Buffers; a last line without one is an error. */
class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private buffered: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(private readonly chunks: AsyncIterator<Uint8Array>) {}

  /** The next line, or null at the end; throws 'too long' past `limit` bytes, 'unterminated' for a cut last line. */
  async read(limit: number): Promise<Buffer | null> {
    for (;;) {
      const newline = this.buffered.indexOf(0x0a);
      if (newline >= 0) {
        if (this.pendingBytes + newline > limit) throw new LineError('too long');
        const line = this.pending.length === 0 ? this.buffered.subarray(0, newline) : Buffer.concat([...this.pending, this.buffered.subarray(0, newline)]);
        this.pending = [];
        this.pendingBytes = 0;
        this.buffered = this.buffered.subarray(newline + 1);
        return line;
      }
      if (this.buffered.length > 0) {
        this.pending.push(this.buffered);
        this.pendingBytes += this.buffered.length;
        this.buffered = Buffer.alloc(0);
        if (this.pendingBytes > limit) throw new LineError('too long');
      }
      if (this.ended) {
        if (this.pendingBytes > 0) throw new LineError('unterminated');
        return null;
      }
      const next = await this.chunks.next();
      if (next.done) this.ended = true;
      else this.buffered = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  }

  async close(): Promise<void> {
    await this.chunks.return?.(undefined);
  }
}

class LineError extends Error {
  constructor(readonly kind: 'too long' | 'unterminated') {
    super(kind);
  }
}

/** An opened backup: its header, and the reader positioned after it. */
interface Opened {
  header: Header;
  headerLine: Buffer;
  lines: LineReader;
  encrypted: boolean;
  close(): Promise<void>;
}

/**
 * Opens a backup and reads its header: an age file is decrypted on the way (a wrong passphrase
 * refused here, before the database is touched). `passphrase` null: the file must be plain.
 * Issue 36 item 3: with a passphrase, a plain file is refused unless `allowPlain` (the operator
 * knows it for theirs), and a version 2 header must say how the file was found: a plain file that
 * says `"encrypted":true` was not written so by `ledger backup`, nor was an age file whose backup
 * says `false` (a plain backup sealed by someone who knows the passphrase).
 */
async function openBackup(file: string, passphrase: string | null, allowPlain: boolean): Promise<Opened> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    throw invalid(`cannot read ${file}`);
  }
  try {
    const encrypted = await isEncryptedBackup(file);
    let chunks: AsyncIterable<Uint8Array> = fileChunks(handle);
    if (encrypted) {
      if (passphrase === null) throw invalid(`${file} is encrypted: set LEDGER_BACKUP_PASSPHRASE or run ledger restore on a terminal to type the passphrase`);
      chunks = await decryptChunks(file, chunks, passphrase);
    }
    const lines = new LineReader(chunks[Symbol.asyncIterator]());
    let headerLine: Buffer | null;
    try {
      headerLine = await lines.read(MAX_HEADER_BYTES);
    } catch (error) {
      if (error instanceof LineError) throw encrypted ? damaged(file, 'its header is cut') : notABackup(file);
      throw error;
    }
    let header: Header;
    try {
      header = JSON.parse(headerLine?.toString('utf8') ?? '') as Header;
    } catch {
      throw encrypted ? damaged(file, 'its header is not a backup header') : notABackup(file);
    }
    if (header?.format !== FORMAT) throw notABackup(file);
    if (typeof header.version !== 'number' || header.version > VERSION || typeof header.schema !== 'number' || header.schema > knownMigrations()) {
      throw newer(file, header);
    }
    if (header.version >= 2) refuseDisagreeingFlag(file, header, encrypted);
    if (!encrypted && passphrase !== null && !allowPlain) throw plainRefused(file);
    return { header, headerLine: headerLine!, lines, encrypted, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Version 2's `encrypted` must say what the file is (every version 2 file has it). */
function refuseDisagreeingFlag(file: string, header: Header, encrypted: boolean): void {
  if (typeof header.encrypted !== 'boolean') throw invalid(`${file} does not say whether it was written encrypted: it is not as ledger backup wrote it`);
  if (header.encrypted && !encrypted) throw invalid(`${file} says it was written encrypted, but it is a plain file: it is not as ledger backup wrote it`);
  if (!header.encrypted && encrypted) {
    throw invalid(`${file} says it was written plain, but it is an encrypted file: it was sealed after ledger backup wrote it, not by ledger backup --encrypt`);
  }
}

/**
 * Loads a backup into an empty database (no user, account or transaction) in one database
 * transaction: rows keep their ids, the seeded clients and the settings row are overwritten, and
 * every id sequence moves past the largest id restored. Refused whole, changing nothing: a
 * version 2 file is checked as it streams and its checksum (or, encrypted, its last chunk) is
 * verified before COMMIT.
 */
export async function restoreBackup(db: Db, file: string, passphrase: string | null = null, { allowPlain = false } = {}): Promise<string> {
  const opened = await openBackup(file, passphrase, allowPlain);
  try {
    if (opened.header.version === 1) {
      // Version 1 was never written encrypted.
      if (opened.encrypted) throw notABackup(file);
      await opened.close();
      const rows = readVersion1(file);
      await db.transaction(async (tx) => {
        const loader = await Loader.start(tx);
        for (const table of TABLES) {
          for (let i = 0; i < rows[table.name].length; i += ROWS_PER_FETCH) await loader.rows(table.name, rows[table.name].slice(i, i + ROWS_PER_FETCH));
        }
        await loader.finish();
      });
      return `restored ${file}: ${describeCounts(Object.fromEntries(TABLES.map((t) => [t.name, rows[t.name].length])))}`;
    }
    const counts = await db.transaction(async (tx) => loadVersion2(tx, file, opened));
    return `restored ${file}: ${describeCounts(counts)}`;
  } catch (error) {
    throw restoreFailure(file, error);
  } finally {
    await opened.close().catch(() => {});
  }
}

/**
 * Issue 36 item 5: what a failed restore says. A database error carries the statement and its
 * parameters (drizzle's message: the rows of a chunk, with their password hashes, token digests
 * or a receipt's bytes) and PostgreSQL's detail quotes values: none of that is shown. A row the
 * database refuses is named by its table and its number there; anything else by its SQLSTATE or
 * constraint, or our own trigger's words (the balance check at COMMIT).
 */
function restoreFailure(file: string, error: unknown): unknown {
  if (error instanceof Refusal) return error;
  if (error instanceof RowRefused) return invalid(`${file} cannot be restored: the database refuses ${error.where} (${error.why})`);
  if (sqlState(error) !== undefined) return invalid(`${file} cannot be restored: the database refuses it (${databaseReason(error)})`);
  const code = causeCode(error);
  return new Error(`restoring ${file} failed${code ? ` (${code})` : ''}`, { cause: error });
}

/** Why the database refused, in words that hold no row: our trigger's message, the constraint, or the SQLSTATE. */
function databaseReason(error: unknown): string {
  const state = sqlState(error);
  const message = sqlMessage(error) ?? '';
  if (state === 'P0001' && /^transaction \d+ does not balance: \d+ entries sum to -?\d+$/.test(message)) return message;
  if ((state === 'LR001' || state === 'LR002') && /^the (transaction is reconciled|books are closed through \d{4}-\d{2}-\d{2})$/.test(message)) return message;
  return sqlConstraint(error) ?? `SQLSTATE ${state ?? 'unknown'}`;
}

/** A failure's own code (ECONNRESET, CONNECTION_CLOSED …), never its message. */
function causeCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  }
  return undefined;
}

/** A row the database refused while loading: where it is in the file, never what it holds (issue 36 item 5). */
class RowRefused extends Error {
  readonly why: string;
  constructor(
    readonly where: string,
    cause: unknown,
    why?: string,
  ) {
    super(`the database refuses ${where}`, { cause });
    this.why = why ?? databaseReason(cause);
  }
}

/**
 * Version 2: every line checked and loaded as it comes; the trailer's counts and checksum (over
 * every byte before it) must match before the transaction may commit. A line that fails to load
 * is judged after reading the rest: in a damaged file it is the damage that is reported.
 */
async function loadVersion2(tx: Db, file: string, opened: Opened): Promise<Counts> {
  const loader = await Loader.start(tx);
  const hash = createHash('sha256').update(opened.headerLine).update('\n');
  const counts = zeroCounts();
  const collect = collecting();
  let receipt: { id: unknown; size: number; received: number } | null = null;
  const completeReceipt = async () => {
    if (receipt && receipt.received !== receipt.size) throw damaged(file, `receipt ${String(receipt.id)} lacks bytes`);
    if (receipt) await loader.finishAttachment();
    receipt = null;
  };
  let trailer: Trailer | null = null;
  let line: Buffer | null;
  try {
    while ((line = await opened.lines.read(MAX_LINE_BYTES)) !== null) {
      if (trailer) throw damaged(file, 'there is more after its end');
      collect(line.length);
      const item = parseLine(file, line);
      if ('end' in item) {
        trailer = item;
        continue;
      }
      hash.update(line).update('\n');
      if ('attachment' in item) {
        if (!receipt || item.attachment !== receipt.id) throw damaged(file, 'receipt bytes out of place');
        receipt.received += await loader.attachmentBytes(item.bytes);
        if (receipt.received > receipt.size) throw damaged(file, `receipt ${String(receipt.id)} has too many bytes`);
        continue;
      }
      await completeReceipt();
      counts[item.table] += item.rows.length;
      if (item.table === 'attachments') {
        const [row] = item.rows;
        if (item.rows.length !== 1 || typeof row?.size !== 'number') throw damaged(file, 'a receipt line is malformed');
        receipt = { id: row.id, size: row.size, received: 0 };
        await loader.startAttachment(row);
      } else {
        await loader.rows(item.table, item.rows);
      }
    }
    await completeReceipt();
  } catch (error) {
    // Every refusal here is damage; anything else (the database refusing a row) may be damage too:
    // read on to find out, and report the damage rather than its symptom.
    if (error instanceof Refusal || error instanceof LineError) throw asDamage(file, error);
    throw (await damageAfter(file, opened, hash, trailer)) ?? error;
  }
  if (!trailer) throw damaged(file, 'it has no end line');
  if (hash.digest('hex') !== trailer.sha256) throw damaged(file, 'its checksum does not match');
  for (const table of TABLES) {
    if (counts[table.name] !== (trailer.counts[table.name] ?? 0)) throw damaged(file, `it counts ${trailer.counts[table.name]} ${table.name} but holds ${counts[table.name]}`);
  }
  await loader.finish();
  return counts;
}

type Line = { table: TableName; rows: Row[] } | { attachment: unknown; bytes: string } | Trailer;

function parseLine(file: string, line: Buffer): Line {
  let item: unknown;
  try {
    item = JSON.parse(line.toString('utf8'));
  } catch {
    throw damaged(file, 'a line is not JSON');
  }
  const x = item as Record<string, unknown>;
  if (x && typeof x === 'object') {
    if (x.end === FORMAT && typeof x.sha256 === 'string' && x.counts && typeof x.counts === 'object') return x as unknown as Trailer;
    if ('attachment' in x && typeof x.bytes === 'string') return x as { attachment: unknown; bytes: string };
    if (isTable(x.table) && Array.isArray(x.rows) && x.rows.every((r) => r && typeof r === 'object')) return x as { table: TableName; rows: Row[] };
  }
  throw damaged(file, 'a line is not part of a backup');
}

/** After a failure: the damage the rest of the file shows (checksum, decryption, cut), if any. */
async function damageAfter(file: string, opened: Opened, hash: ReturnType<typeof createHash>, trailer: Trailer | null): Promise<unknown> {
  if (opened.encrypted && trailer) return null;
  try {
    let line: Buffer | null;
    while ((line = await opened.lines.read(MAX_LINE_BYTES)) !== null) {
      if (trailer) return damaged(file, 'there is more after its end');
      if (line.subarray(0, 8).toString('latin1') === '{"end":"') {
        try {
          trailer = parseLine(file, line) as Trailer;
          continue;
        } catch {
          // not a trailer: part of the damage
        }
      }
      hash.update(line).update('\n');
    }
  } catch (error) {
    return asDamage(file, error);
  }
  if (opened.encrypted) return null;
  if (!trailer || trailer.sha256 !== hash.digest('hex')) return damaged(file, 'its checksum does not match');
  return null;
}

function asDamage(file: string, error: unknown): unknown {
  if (error instanceof LineError) return damaged(file, error.kind === 'too long' ? 'a line is far too long' : 'its last line is cut');
  return error;
}

/** Version 1: the whole file, checked by the header's checksum before anything is written. */
function readVersion1(file: string): Rows {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw invalid(`cannot read ${file}`);
  }
  const newline = text.indexOf('\n');
  const header = JSON.parse(text.slice(0, newline)) as Header;
  if (typeof header.sha256 !== 'string') throw notABackup(file);
  const body = text.slice(newline + 1).replace(/\n$/, '');
  if (createHash('sha256').update(body).digest('hex') !== header.sha256) {
    throw damaged(file, 'its checksum does not match');
  }
  const rows = JSON.parse(body) as Rows;
  for (const table of TABLES) {
    // Version 1 never carried receipts.
    if (table.name === 'attachments' || ('since' in table && header.schema < table.since && rows[table.name] === undefined)) rows[table.name] = [];
    if (!Array.isArray(rows[table.name])) throw notABackup(file);
  }
  if (header.schema < 11) grantsOfOldTokens(rows);
  return rows;
}

/**
 * D25: a backup made before grants holds the live refresh token of each OAuth connection (retired
 * ones are left out) and the access tokens it minted: each refresh token becomes a grant of its
 * own, which its access tokens join. An access token whose refresh token was retired before the
 * backup (it lives an hour at most) and a minted token belong to none.
 */
function grantsOfOldTokens(rows: Rows): void {
  const grantOf = new Map<unknown, string>();
  for (const token of rows.tokens) {
    if (token.kind !== 'refresh') continue;
    const id = randomUUID();
    grantOf.set(token.hash, id);
    rows.grants.push({ id, user_id: token.user_id, client_id: token.client_id, created_at: token.created_at, revoked_at: null });
  }
  for (const token of rows.tokens) {
    token.grant_id = grantOf.get(token.kind === 'refresh' ? token.hash : token.parent_hash) ?? null;
  }
}

// ---------------------------------------------------------------------------------------------
// Loading

/** One batch of a table's rows, as PostgreSQL's row_to_json wrote them (entries' locks kept aside, D20). */
async function insertRows(tx: Db, table: TableName, rows: Row[]): Promise<void> {
  const name = sql.identifier(table);
  const json = JSON.stringify(rows.map((row) => loadedFirst(table, row)));
  // The seeded rows (ledger-cli, ledger-desktop, the settings row) exist in every migrated database.
  if (table === 'oauth_clients' || table === 'settings') {
    await tx.execute(sql`delete from ${name} t where t.id::text in (select r->>'id' from json_array_elements(${json}::json) r)`);
  }
  await tx.execute(sql`insert into ${name} overriding system value select * from json_populate_recordset(null::${name}, ${json}::json)`);
  if (table === 'entries') {
    await tx.execute(sql`
      insert into ledger_restore_reconciled
      select id, reconciliation_id from json_to_recordset(${JSON.stringify(rows)}::json) as r(id bigint, reconciliation_id integer)
      where reconciliation_id is not null`);
  }
}

/**
 * D20: `ledger restore` keeps every trigger on, so the locks are set after what they lock: entries
 * are loaded unreconciled and settings with no closed period (and, from backups made before D20,
 * the default currency); `finish` then marks the reconciled entries (kept aside in a temporary
 * table as they stream by) and closes the period.
 */
function loadedFirst(table: TableName, row: Row): Row {
  if (table === 'entries') return { ...row, reconciliation_id: null };
  if (table === 'settings') return { currency: 'EUR', ...row, closed_through: null };
  return row;
}

/**
 * Inserts rows batch by batch inside the restore's transaction, parents first, ids kept. Each batch
 * under a savepoint: when the database refuses one, its rows are tried one by one to name the row
 * refused (issue 36 item 5), the only cost being two statements per batch.
 */
class Loader {
  private closedThrough: unknown = null;
  /** The receipt whose bytes are coming (D22), and how many lines of them came. */
  private receipt: Row | null = null;
  private pieces = 0;
  /** How many rows of each table came so far: a refused row's number in its table. */
  private readonly loaded = zeroCounts();

  private constructor(private readonly tx: Db) {}

  /** Refuses a database that is not empty; makes the transaction's temporary tables. */
  static async start(tx: Db): Promise<Loader> {
    const [occupied] = rowsOf<{ n: number }>(
      await tx.execute(sql`select (select count(*) from users) + (select count(*) from accounts) + (select count(*) from transactions) as n`),
    );
    if (Number(occupied?.n) > 0) throw invalid('the database is not empty (it has users, accounts or transactions): restore into a new one');
    await tx.execute(sql`create temporary table ledger_restore_reconciled (id bigint primary key, reconciliation_id integer not null) on commit drop`);
    await tx.execute(sql`create temporary table ledger_restore_pieces (n integer primary key, bytes bytea not null) on commit drop`);
    return new Loader(tx);
  }

  async rows(table: TableName, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const first = this.loaded[table] + 1;
    this.loaded[table] += rows.length;
    try {
      await this.tx.transaction((savepoint) => insertRows(savepoint, table, rows));
    } catch (error) {
      if (sqlState(error) === undefined) throw error;
      throw await this.refusedRow(table, first, rows, error);
    }
    if (table === 'settings') this.closedThrough = rows[0]?.closed_through ?? null;
  }

  /** After a batch was refused: the first of its rows that the database refuses alone. */
  private async refusedRow(table: TableName, first: number, rows: Row[], batchError: unknown): Promise<RowRefused> {
    for (const [i, row] of rows.entries()) {
      try {
        await this.tx.transaction((savepoint) => insertRows(savepoint, table, [row]));
      } catch (error) {
        return new RowRefused(`row ${first + i} of ${table}`, error);
      }
    }
    // Only together (two rows of the batch collide): the batch.
    return new RowRefused(`rows ${first}–${first + rows.length - 1} of ${table}`, batchError);
  }

  /** D22: a receipt's row; its bytes follow, kept by the database until the last has come. */
  async startAttachment(row: Row): Promise<void> {
    this.receipt = row;
    this.loaded.attachments++;
    this.pieces = 0;
    await this.tx.execute(sql`delete from ledger_restore_pieces`);
  }

  /** Returns how many bytes the line held. */
  async attachmentBytes(base64: string): Promise<number> {
    try {
      const [piece] = rowsOf<{ size: number }>(
        await this.tx.execute(sql`insert into ledger_restore_pieces values (${this.pieces++}, decode(${base64}, 'base64')) returning octet_length(bytes) as size`),
      );
      return Number(piece!.size);
    } catch (error) {
      throw sqlState(error) === undefined ? error : new RowRefused(`row ${this.loaded.attachments} of attachments`, error, 'its bytes');
    }
  }

  async finishAttachment(): Promise<void> {
    const columns = sql.join(ATTACHMENT_COLUMNS.map((c) => sql.identifier(c)), sql`, `);
    const fromRow = sql.join(ATTACHMENT_COLUMNS.map((c) => sql`r.${sql.identifier(c)}`), sql`, `);
    try {
      await this.tx.execute(sql`
        insert into attachments (${columns}, bytes) overriding system value
        select ${fromRow}, coalesce((select string_agg(p.bytes, ''::bytea order by p.n) from ledger_restore_pieces p), ''::bytea)
        from json_populate_record(null::attachments, ${JSON.stringify(this.receipt)}::json) r`);
    } catch (error) {
      throw sqlState(error) === undefined ? error : new RowRefused(`row ${this.loaded.attachments} of attachments`, error);
    }
    this.receipt = null;
  }

  /** The locks last (D20), then every id sequence past the restored ids. */
  async finish(): Promise<void> {
    const refused = (where: string) => (error: unknown) => {
      throw sqlState(error) === undefined ? error : new RowRefused(where, error);
    };
    await this.tx
      .execute(sql`update entries e set reconciliation_id = r.reconciliation_id from ledger_restore_reconciled r where e.id = r.id`)
      .catch(refused('the reconciled entries'));
    await this.tx.execute(sql`update settings set closed_through = ${this.closedThrough}::date`).catch(refused('row 1 of settings'));
    for (const table of SEQUENCED) {
      await this.tx.execute(
        sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.identifier(table)}), 0) + 1, false)`,
      );
    }
  }
}
