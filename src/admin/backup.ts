import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER, rowsOf, type Db } from '../db/database';
import { invalid } from '../errors';

/**
 * D14: `ledger backup` and `ledger restore`. The file, documented in the README:
 *
 *   line 1: a JSON header {format: "ledger-backup", version: 1, schema, created_at, counts, sha256}
 *   line 2: a JSON object with one array of rows per table, as PostgreSQL writes them (row_to_json)
 *
 * `schema` is the number of migrations the database had; `sha256` is the hex digest of line 2's
 * bytes, so that a truncated or altered file is refused before anything is written. Rows keep
 * their ids. Secrets are stored as the database keeps them: password hashes, token digests,
 * passkeys' public keys; never a plaintext secret. Sessions, codes, device grants and the login
 * throttle are left out (short-lived; a restored instance starts with everybody signed out).
 */
const FORMAT = 'ledger-backup';
const VERSION = 1;

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
] as const;

/** The tables whose ids come from a sequence (identity columns), moved past the restored ids. */
const SEQUENCED: readonly TableName[] = ['users', 'passkeys', 'accounts', 'transactions', 'entries', 'changes', 'import_rules', 'reconciliations', 'import_lines', 'schedules'];

type TableName = (typeof TABLES)[number]['name'];
type Rows = Record<TableName, Record<string, unknown>[]>;

interface Header {
  format: typeof FORMAT;
  version: number;
  schema: number;
  created_at: string;
  counts: Record<TableName, number>;
  sha256: string;
}

/** How many migrations this build knows (drizzle's journal): a backup's `schema` may not exceed it. */
function knownMigrations(): number {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

/** One consistent snapshot of every table (a repeatable-read, read-only transaction). */
async function readRows(db: Db): Promise<Rows> {
  return db.transaction(
    async (tx) => {
      const rows = {} as Rows;
      for (const table of TABLES) {
        const filter = 'where' in table ? sql.raw(`where ${table.where}`) : sql``;
        const result = await tx.execute(
          sql`select coalesce(json_agg(row_to_json(t) order by ${sql.join([table.key].flat().map((k) => sql`t.${sql.identifier(k)}`), sql`, `)}), '[]'::json)::text as rows
              from ${sql.identifier(table.name)} t ${filter}`,
        );
        rows[table.name] = JSON.parse(rowsOf<{ rows: string }>(result)[0]!.rows) as Record<string, unknown>[];
      }
      return rows;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

function countsOf(rows: Rows): Record<TableName, number> {
  return Object.fromEntries(TABLES.map((t) => [t.name, rows[t.name].length])) as Record<TableName, number>;
}

const describeCounts = (counts: Record<TableName, number>) => TABLES.map((t) => `${counts[t.name] ?? 0} ${t.name}`).join(', ');

/**
 * Writes the backup to `file`, 0600, through a temporary file beside it and a rename, so that a
 * reader never sees half a backup and an existing file is replaced whole. Returns what it wrote.
 */
export async function writeBackup(db: Db, file: string): Promise<string> {
  const rows = await readRows(db);
  const body = JSON.stringify(rows);
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    schema: knownMigrations(),
    created_at: new Date().toISOString(),
    counts: countsOf(rows),
    sha256: createHash('sha256').update(body).digest('hex'),
  };
  const target = path.resolve(file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': a new file of our own, never through a symlink someone planted.
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(header)}\n${body}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, target);
  return `wrote ${target}: ${describeCounts(header.counts)}`;
}

/** Reads and checks a backup file; every problem is one sentence and nothing has been written. */
function readBackup(file: string): { header: Header; rows: Rows } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw invalid(`cannot read ${file}`);
  }
  const newline = text.indexOf('\n');
  let header: Header;
  try {
    header = JSON.parse(text.slice(0, newline < 0 ? undefined : newline)) as Header;
  } catch {
    throw invalid(`${file} is not a Ledger backup`);
  }
  if (header?.format !== FORMAT || typeof header.sha256 !== 'string') throw invalid(`${file} is not a Ledger backup`);
  if (header.version !== VERSION || typeof header.schema !== 'number' || header.schema > knownMigrations()) {
    throw invalid(`${file} was made by a newer Ledger (backup format ${header.version}, schema ${header.schema}); restore it with that version`);
  }
  const body = text.slice(newline + 1).replace(/\n$/, '');
  if (createHash('sha256').update(body).digest('hex') !== header.sha256) {
    throw invalid(`${file} is damaged (truncated or altered): its checksum does not match`);
  }
  const rows = JSON.parse(body) as Rows;
  for (const table of TABLES) {
    if ('since' in table && header.schema < table.since && rows[table.name] === undefined) rows[table.name] = [];
    if (!Array.isArray(rows[table.name])) throw invalid(`${file} is not a Ledger backup`);
  }
  if (header.schema < 11) grantsOfOldTokens(rows);
  return { header, rows };
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

/**
 * D20: `ledger restore` keeps every trigger on, so the locks are set after what they lock: entries
 * are loaded unreconciled and settings with no closed period (and, from backups made before D20,
 * the default currency); `setLocksLast` then marks the reconciled entries and closes the period.
 */
function loadedFirst(table: TableName, row: Record<string, unknown>): Record<string, unknown> {
  if (table === 'entries') return { ...row, reconciliation_id: null };
  if (table === 'settings') return { currency: 'EUR', ...row, closed_through: null };
  return row;
}

async function setLocksLast(tx: Db, rows: Rows): Promise<void> {
  const reconciled = JSON.stringify(rows.entries.filter((e) => e.reconciliation_id != null).map((e) => ({ id: e.id, reconciliation_id: e.reconciliation_id })));
  await tx.execute(sql`
    update entries e set reconciliation_id = r.reconciliation_id
    from json_to_recordset(${reconciled}::json) as r(id bigint, reconciliation_id integer)
    where e.id = r.id`);
  const closedThrough = rows.settings[0]?.closed_through ?? null;
  await tx.execute(sql`update settings set closed_through = ${closedThrough}::date`);
}

/**
 * Loads a backup into an empty database (no user, account or transaction) in one database
 * transaction: rows keep their ids, the seeded clients and the settings row are overwritten, and
 * every id sequence moves past the largest id restored. Refused whole, changing nothing.
 */
export async function restoreBackup(db: Db, file: string): Promise<string> {
  const { header, rows } = readBackup(file);
  await db.transaction(async (tx) => {
    const [occupied] = rowsOf<{ n: number }>(
      await tx.execute(sql`select (select count(*) from users) + (select count(*) from accounts) + (select count(*) from transactions) as n`),
    );
    if (Number(occupied?.n) > 0) throw invalid('the database is not empty (it has users, accounts or transactions): restore into a new one');
    for (const table of TABLES) {
      const name = sql.identifier(table.name);
      const json = JSON.stringify(rows[table.name].map((row) => loadedFirst(table.name, row)));
      // The seeded rows (ledger-cli, ledger-desktop, the settings row) exist in every migrated database.
      if (table.name === 'oauth_clients' || table.name === 'settings') {
        await tx.execute(sql`delete from ${name} t where t.id::text in (select r->>'id' from json_array_elements(${json}::json) r)`);
      }
      await tx.execute(sql`insert into ${name} overriding system value select * from json_populate_recordset(null::${name}, ${json}::json)`);
    }
    await setLocksLast(tx, rows);
    for (const table of SEQUENCED) {
      await tx.execute(
        sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.identifier(table)}), 0) + 1, false)`,
      );
    }
  });
  return `restored ${file}: ${describeCounts(header.counts)}`;
}
