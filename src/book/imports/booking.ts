import { and, eq, inArray, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../../db/database';
import { accounts, changes, entries, importReferences, INT4_MAX, transactions } from '../../db/schema';
import { invalid, invalidLines, type LineError } from '../../errors';
import { requestSchema, strictBody } from '../../shapes';
import type { Author } from '../changes';
import { AMOUNT_MAX } from '../transactions';
import type { ImportPreview, ImportResult, Transaction } from '../views';
import { CsvOptionsSchema, parseStatement, STATEMENT_FORMATS, type StatementLine } from './index';
import { collapseWhitespace } from './statement';
import { foldCase, listImportRules, matchRule } from './rules';

// D16: a bank statement booked against the book. Each line of amount A becomes a two-entry
// transaction, +A on the statement's account and −A on its counter account (the first matching
// rule's, else `unmatched_account_id`). A preview writes nothing; an import writes every new line
// or, when any line is at fault, nothing.

const accountIdField = (field: string) =>
  v.pipe(
    v.number(`${field} must be an integer`),
    v.integer(`${field} must be an integer`),
    v.minValue(1, `${field} must be a positive integer`),
    v.maxValue(INT4_MAX, `${field} names no account`),
  );

export const ImportRequestSchema = requestSchema('ImportRequest', strictBody(
  {
    account_id: v.pipe(accountIdField('account_id'), v.description('the bank or cash account the statement is for')),
    format: v.picklist(STATEMENT_FORMATS, 'format must be csv, ofx or camt053'),
    content: v.pipe(v.string('content must be the text of the file'), v.description("the file's text")),
    unmatched_account_id: v.pipe(accountIdField('unmatched_account_id'), v.description('the counter account of lines no rule matches')),
    csv: v.optional(CsvOptionsSchema),
  },
  'the request body must be a JSON object with account_id, format, content and unmatched_account_id',
));
export type ImportRequest = v.InferOutput<typeof ImportRequestSchema>;

type PreviewLine = v.InferOutput<typeof ImportPreview>['lines'][number];
interface Plan {
  lines: (PreviewLine & { reference: string | null })[];
  errors: LineError[];
}

/** D16's duplicate test without a bank reference: trimmed, inner whitespace collapsed, case folded. */
export function normaliseDescription(text: string): string {
  return foldCase(collapseWhitespace(text));
}

async function accountNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  const rows = await db.select({ id: accounts.id, name: accounts.name }).from(accounts).where(inArray(accounts.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The statement read, each line given its counter account; line errors collected, not thrown. */
async function readStatement(db: Db, request: ImportRequest): Promise<Plan> {
  if (request.format === 'csv' && !request.csv) throw invalid('csv is required for format csv: the columns, date format and decimal mark');
  if (request.format !== 'csv' && request.csv) throw invalid('csv is only for format csv');
  if (request.account_id === request.unmatched_account_id) throw invalid("unmatched_account_id must differ from the statement's account");
  const known = await accountNames(db, [request.account_id, request.unmatched_account_id]);
  if (!known.has(request.account_id)) throw invalid('account_id: no such account');
  if (!known.has(request.unmatched_account_id)) throw invalid('unmatched_account_id: no such account');

  const parsed = parseStatement(request.format, request.content, request.csv);
  const errors: LineError[] = [...parsed.errors];
  const rules = await listImportRules(db);
  const seen = new Map<string, number>();
  const lines: Plan['lines'] = [];
  for (const line of parsed.lines) {
    const rule = matchRule(rules, line.description);
    const fault = lineFault(line, seen, request.account_id, rule?.account_id);
    if (fault) {
      errors.push({ line: line.line, error: fault });
      continue;
    }
    lines.push({
      line: line.line,
      occurred_on: line.occurred_on,
      description: line.description,
      amount_cents: line.amount_cents,
      counter_account_id: rule?.account_id ?? request.unmatched_account_id,
      rule_id: rule?.id ?? null,
      duplicate_of: null,
      reference: line.reference,
    });
  }
  errors.sort((a, b) => a.line - b.line);
  return { lines, errors };
}

/** Why a parsed line cannot be booked, if it cannot. */
function lineFault(line: StatementLine, seen: Map<string, number>, accountId: number, ruleAccount: number | undefined): string | undefined {
  if (Math.abs(line.amount_cents) > AMOUNT_MAX) return `line ${line.line}: the amount is larger than Ledger keeps (at most ${AMOUNT_MAX / 100} in money)`;
  if (ruleAccount === accountId) return `line ${line.line}: its rule books it against the statement's own account`;
  if (line.reference !== null) {
    // A bank's reference names one entry of one account: the same one twice is a broken file.
    const first = seen.get(line.reference);
    if (first !== undefined) return `line ${line.line}: the bank reference ${line.reference} is also on line ${first}`;
    seen.set(line.reference, line.line);
  }
  return undefined;
}

/**
 * Marks the lines imported before (D16): by bank reference on this account; without one, by a
 * transaction on this account with the same date, amount and normalised description, each such
 * transaction matching at most one line, in the order of the lines.
 */
async function markDuplicates(db: Db, accountId: number, lines: Plan['lines']): Promise<void> {
  const references = lines.flatMap((l) => (l.reference === null ? [] : [l.reference]));
  if (references.length > 0) {
    const known = await db
      .select({ reference: importReferences.reference, transactionId: importReferences.transactionId })
      .from(importReferences)
      .where(and(eq(importReferences.accountId, accountId), inArray(importReferences.reference, references)));
    const byReference = new Map(known.map((k) => [k.reference, k.transactionId]));
    for (const line of lines) if (line.reference !== null) line.duplicate_of = byReference.get(line.reference) ?? null;
  }

  const unreferenced = lines.filter((l) => l.reference === null);
  if (unreferenced.length === 0) return;
  const dates = [...new Set(unreferenced.map((l) => l.occurred_on))];
  const result = await db.execute(sql`
    select t.id, t.occurred_on::text as occurred_on, t.description, sum(e.amount_cents)::text as amount
    from ${entries} e join ${transactions} t on t.id = e.transaction_id
    where e.account_id = ${accountId} and e.occurred_on = any(${`{${dates.join(',')}}`}::date[])
    group by t.id
    order by t.id`);
  const candidates = new Map<string, number[]>();
  for (const row of rowsOf<{ id: number; occurred_on: string; description: string; amount: string }>(result)) {
    const key = `${row.occurred_on}|${row.amount}|${normaliseDescription(row.description)}`;
    candidates.set(key, [...(candidates.get(key) ?? []), Number(row.id)]);
  }
  for (const line of unreferenced) {
    const match = candidates.get(`${line.occurred_on}|${line.amount_cents}|${normaliseDescription(line.description)}`)?.shift();
    line.duplicate_of = match ?? null;
  }
}

async function plan(db: Db, request: ImportRequest): Promise<Plan> {
  const statement = await readStatement(db, request);
  await markDuplicates(db, request.account_id, statement.lines);
  return statement;
}

const withoutReference = ({ reference: _, ...line }: Plan['lines'][number]): PreviewLine => line;

/** `POST /imports/preview`: every line as it would be booked; nothing written. */
export async function previewImport(db: Db, request: ImportRequest): Promise<v.InferOutput<typeof ImportPreview>> {
  const { lines, errors } = await plan(db, request);
  return { lines: lines.map(withoutReference), errors };
}

/** Advisory lock key of an account's imports: two imports of one account run one after the other. */
const IMPORT_LOCK = 16_016;

/**
 * `POST /imports`: every new line of the statement written in one database transaction, each with
 * its change record (D15) and its bank reference; any line at fault and nothing is written.
 * Imports to one account are serialised, so the same file sent twice at once is imported once.
 */
export async function importStatement(db: Db, request: ImportRequest, author: Author): Promise<v.InferOutput<typeof ImportResult>> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${IMPORT_LOCK}, ${request.account_id})`);
    const { lines, errors } = await plan(tx, request);
    if (errors.length > 0) {
      const count = errors.length === 1 ? 'a line' : `${errors.length} lines`;
      throw invalidLines(`the statement was not imported: ${count} cannot be booked`, errors);
    }
    const fresh = lines.filter((l) => l.duplicate_of === null);
    const created = await writeLines(tx, request.account_id, fresh, author);
    return { created, duplicates: lines.filter((l) => l.duplicate_of !== null).map((l) => l.line), errors: [] };
  });
}

/** The new transactions, their entries, change records and references, in bulk; their ids in line order. */
async function writeLines(db: Db, accountId: number, lines: Plan['lines'], author: Author): Promise<number[]> {
  if (lines.length === 0) return [];
  // Ids drawn first, so each line knows its transaction without relying on the order of RETURNING.
  const drawn = await db.execute(sql`select nextval(pg_get_serial_sequence('transactions', 'id'))::integer as id from generate_series(1, ${lines.length}::integer)`);
  const ids = rowsOf<{ id: number }>(drawn).map((r) => Number(r.id));
  const names = await accountNames(db, [accountId, ...new Set(lines.map((l) => l.counter_account_id))]);
  const rows = lines.map((line, i) => {
    const shape: v.InferOutput<typeof Transaction> = {
      id: ids[i]!,
      occurred_on: line.occurred_on,
      description: line.description,
      created_by_email: author.email,
      entries: [
        { account_id: accountId, account_name: names.get(accountId)!, amount_cents: line.amount_cents },
        { account_id: line.counter_account_id, account_name: names.get(line.counter_account_id)!, amount_cents: -line.amount_cents },
      ],
    };
    return { ...shape, n: i, reference: line.reference, after: shape };
  });
  const json = JSON.stringify(rows);
  await db.execute(sql`
    insert into ${transactions} (id, occurred_on, description, created_by) overriding system value
    select r.id, r.occurred_on, r.description, ${author.userId}::integer
    from jsonb_to_recordset(${json}::jsonb) as r(id integer, occurred_on date, description text)`);
  await db.execute(sql`
    insert into ${entries} (transaction_id, occurred_on, account_id, amount_cents)
    select r.id, r.occurred_on, e.account_id, e.amount_cents
    from jsonb_to_recordset(${json}::jsonb) as r(id integer, occurred_on date, entries jsonb, n integer),
      rows from (jsonb_to_recordset(r.entries) as (account_id integer, amount_cents bigint)) with ordinality as e(account_id, amount_cents, m)
    order by r.n, e.m`);
  await db.execute(sql`
    insert into ${changes} (actor_email, via, client_id, subject, subject_id, action, after)
    select ${author.email}::text, ${author.via}::text, ${author.clientId}::text, 'transaction', r.id, 'create', r.after
    from jsonb_to_recordset(${json}::jsonb) as r(id integer, after jsonb, n integer)
    order by r.n`);
  await db.execute(sql`
    insert into ${importReferences} (account_id, reference, transaction_id)
    select ${accountId}::integer, r.reference, r.id
    from jsonb_to_recordset(${json}::jsonb) as r(id integer, reference text)
    where r.reference is not null`);
  return ids;
}
