import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../../db/database';
import { IMPORT_LOCK } from '../../db/locks';
import { accounts, changes, entries, importLines, importReferences, INT4_MAX, reconciliations, transactions, type AccountKind } from '../../db/schema';
import { invalid, invalidLines, type LineError } from '../../errors';
import { requestSchema, strictBody } from '../../shapes';
import type { Author } from '../changes';
import { naturalBalance } from '../rules';
import { AMOUNT_MAX } from '../transactions';
import type { ImportPreview, ImportResult, Transaction } from '../views';
import { CsvOptionsSchema, parseStatement, STATEMENT_FORMATS, type StatementFormat, type StatementLine } from './index';
import { DATE_FORMAT_AUTO, type DateFormat } from './date-formats';
import { collapseWhitespace, type StatedBalance, type StatementBalances } from './statement';
import { loadCollectionMatcher, matchCollection } from './collection-match';
import { loadPeopleMatcher, matchPerson } from './people-match';
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

/** D16: how many days a hand entry may lie from its statement line and still be offered as its match. */
export const MATCH_DAYS_MAX = 10;
const MATCH_DAYS_DEFAULT = 3;
const MATCH_DAYS_MESSAGE = `match_days must be a whole number from 0 to ${MATCH_DAYS_MAX}`;
const MATCHES_MESSAGE = 'matches must be a list of {line, transaction_id}';
const COUNTER_ACCOUNTS_MESSAGE = 'counter_accounts must be a list of {line, account_id}';
const positive = (message: string) => v.pipe(v.number(message), v.integer(message), v.minValue(1, message), v.maxValue(INT4_MAX, message));

const statementEntries = {
  account_id: v.pipe(accountIdField('account_id'), v.description('the bank or cash account the statement is for')),
  format: v.picklist(STATEMENT_FORMATS, 'format must be csv, ofx or camt053'),
  content: v.pipe(v.string('content must be the text of the file'), v.description("the file's text")),
  unmatched_account_id: v.pipe(accountIdField('unmatched_account_id'), v.description('the counter account of lines no rule matches')),
  csv: v.optional(CsvOptionsSchema),
  match_days: v.optional(
    v.pipe(
      v.number(MATCH_DAYS_MESSAGE),
      v.integer(MATCH_DAYS_MESSAGE),
      v.minValue(0, MATCH_DAYS_MESSAGE),
      v.maxValue(MATCH_DAYS_MAX, MATCH_DAYS_MESSAGE),
      v.description('how many days a transaction typed by hand may lie from a line to be its match_of (default 3)'),
    ),
    MATCH_DAYS_DEFAULT,
  ),
  counter_accounts: v.optional(
    v.pipe(
      v.array(v.strictObject({ line: positive(COUNTER_ACCOUNTS_MESSAGE), account_id: positive(COUNTER_ACCOUNTS_MESSAGE) }, COUNTER_ACCOUNTS_MESSAGE), COUNTER_ACCOUNTS_MESSAGE),
      v.description("lines booked against the account chosen here instead of the person matched (D27), the rule's or unmatched_account_id"),
    ),
  ),
};
const WHAT = 'the request body must be a JSON object with account_id, format, content and unmatched_account_id';

/** `POST /imports/preview` (D16). */
export const ImportPreviewRequestSchema = requestSchema('ImportPreviewRequest', strictBody(statementEntries, WHAT));
export type ImportPreviewRequest = v.InferOutput<typeof ImportPreviewRequestSchema>;

/** `POST /imports` (D16): the preview's fields, and the lines to link to transactions typed by hand. */
export const ImportRequestSchema = requestSchema('ImportRequest', strictBody(
  {
    ...statementEntries,
    matches: v.optional(
      v.pipe(
        v.array(v.strictObject({ line: positive(MATCHES_MESSAGE), transaction_id: positive(MATCHES_MESSAGE) }, MATCHES_MESSAGE), MATCHES_MESSAGE),
        v.description("lines that create nothing but are linked to the preview's match_of of the same line"),
      ),
    ),
  },
  WHAT,
));
export type ImportRequest = v.InferOutput<typeof ImportRequestSchema>;

type Preview = v.InferOutput<typeof ImportPreview>;
type PreviewLine = Preview['lines'][number];
type PlannedLine = PreviewLine & { reference: string | null };
interface Plan {
  kind: AccountKind;
  lines: PlannedLine[];
  errors: LineError[];
  dateFormat: DateFormat | null;
  balances: StatementBalances;
}

/** D16's duplicate test without a bank reference: trimmed, inner whitespace collapsed, case folded. */
export function normaliseDescription(text: string): string {
  return foldCase(collapseWhitespace(text));
}

async function accountsNamed(db: Db, ids: number[]): Promise<Map<number, { name: string; kind: AccountKind }>> {
  const rows = await db.select({ id: accounts.id, name: accounts.name, kind: accounts.kind }).from(accounts).where(inArray(accounts.id, ids));
  return new Map(rows.map((r) => [r.id, r]));
}

async function accountNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  return new Map([...(await accountsNamed(db, ids))].map(([id, a]) => [id, a.name]));
}

/** The statement read, each line given its counter account; line errors collected, not thrown. */
async function readStatement(db: Db, request: ImportPreviewRequest): Promise<Plan> {
  if (request.format === 'csv' && !request.csv) throw invalid('csv is required for format csv: the columns and decimal mark');
  if (request.format !== 'csv' && request.csv) throw invalid('csv is only for format csv');
  if (request.account_id === request.unmatched_account_id) throw invalid("unmatched_account_id must differ from the statement's account");
  const known = await accountsNamed(db, [request.account_id, request.unmatched_account_id]);
  const account = known.get(request.account_id);
  if (!account) throw invalid('account_id: no such account');
  if (!known.has(request.unmatched_account_id)) throw invalid('unmatched_account_id: no such account');

  const parsed = parseStatement(request.format, request.content, request.csv);
  const errors: LineError[] = [...parsed.errors];
  const rules = await listImportRules(db);
  const people = await loadPeopleMatcher(db, request.account_id);
  const collections = await loadCollectionMatcher(db, request.account_id);
  const chosen = await chosenAccounts(db, request, parsed.lines, errors);
  const seen = new Map<string, number>();
  const lines: Plan['lines'] = [];
  for (const line of parsed.lines) {
    if (chosen.faulty.has(line.line)) continue;
    // D27: the treasurer's choice first, then a direct-debit batch's credit, then the person the
    // payment is recognised as, then the rules.
    const choice = chosen.accounts.get(line.line);
    const batch = choice === undefined ? matchCollection(collections, line) : null;
    const person = choice === undefined && batch === null ? matchPerson(people, line) : null;
    const rule = choice === undefined && batch === null && person === null ? matchRule(rules, line.description) : undefined;
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
      counter_account_id: choice ?? batch ?? person?.account_id ?? rule?.account_id ?? request.unmatched_account_id,
      rule_id: rule?.id ?? null,
      person_id: person?.person_id ?? null,
      person_match: person?.person_match ?? null,
      duplicate_of: null,
      match_of: null,
      reconciled_period: false,
      reference: line.reference,
    });
  }
  const named = request.csv?.date_format;
  return {
    kind: account.kind,
    lines,
    errors,
    dateFormat: parsed.date_format ?? (named === undefined || named === DATE_FORMAT_AUTO ? null : named),
    balances: parsed.balances ?? { opening: null, closing: null },
  };
}

/**
 * D27 "the treasurer can change it": the counter account chosen for each line named in
 * `counter_accounts`, checked in one query. A pair that names no line of the statement, a line
 * twice, no account, or the statement's own account is the line's error (added to `errors`); a
 * line with such an error is `faulty` and left out, as any line at fault.
 */
async function chosenAccounts(
  db: Db,
  request: ImportPreviewRequest,
  lines: readonly StatementLine[],
  errors: LineError[],
): Promise<{ accounts: Map<number, number>; faulty: Set<number> }> {
  const accounts = new Map<number, number>();
  const faulty = new Set<number>();
  const pairs = request.counter_accounts ?? [];
  if (pairs.length === 0) return { accounts, faulty };
  const numbers = new Set(lines.map((l) => l.line));
  // A line the reader could not read already says why; its pair adds nothing.
  const unread = new Set(errors.map((e) => e.line));
  const known = await accountsNamed(db, [...new Set(pairs.map((p) => p.account_id))]);
  const fault = (n: number, error: string) => {
    errors.push({ line: n, error: `line ${n}: ${error}` });
    faulty.add(n);
  };
  for (const { line: n, account_id: id } of pairs) {
    if (unread.has(n)) continue;
    if (accounts.has(n) || faulty.has(n)) fault(n, 'counter_accounts names this line twice');
    else if (!numbers.has(n)) errors.push({ line: n, error: `line ${n}: counter_accounts names no line ${n} of the statement` });
    else if (!known.has(id)) fault(n, `counter_accounts: no such account ${id}`);
    else if (id === request.account_id) fault(n, "counter_accounts books it against the statement's own account");
    else accounts.set(n, id);
  }
  for (const n of faulty) accounts.delete(n);
  return { accounts, faulty };
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

/** Candidate transactions by D16's content key: date, amount on the account, normalised description. */
type ContentKeys = Map<string, number[]>;
const contentKey = (occurredOn: string, amount: string | number, descriptionKey: string) => `${occurredOn}|${amount}|${descriptionKey}`;

function addCandidate(candidates: ContentKeys, key: string, id: number): void {
  const ids = candidates.get(key) ?? [];
  if (!ids.includes(id)) candidates.set(key, [...ids, id]);
}

/**
 * Marks the lines imported before (D16): by bank reference on this account; a line without one
 * by a transaction on this account with the same date, amount and normalised description, or by
 * a line linked before to a transaction typed by hand (import_lines, `linked`: the line's own
 * date, amount and description, which the hand entry need not share); a line whose reference is
 * new, the same way but only among what an import of another format (or of a format not recorded)
 * created or linked, so a bank export switched from camt to OFX never books a line twice, while
 * two lines of one format with two references stay two. Each transaction matches at most one
 * line: references first, then the rest in the order of the lines.
 */
async function markDuplicates(db: Db, accountId: number, format: StatementFormat, lines: Plan['lines']): Promise<void> {
  const references = lines.flatMap((l) => (l.reference === null ? [] : [l.reference]));
  if (references.length > 0) {
    const known = await db
      .select({ reference: importReferences.reference, transactionId: importReferences.transactionId })
      .from(importReferences)
      .where(and(eq(importReferences.accountId, accountId), inArray(importReferences.reference, references)));
    const byReference = new Map(known.map((k) => [k.reference, k.transactionId]));
    for (const line of lines) if (line.reference !== null) line.duplicate_of = byReference.get(line.reference) ?? null;
  }

  const open = lines.filter((l) => l.duplicate_of === null);
  if (open.length === 0) return;
  const unreferencedLines = open.filter((l) => l.reference === null);
  const newReferenceLines = open.filter((l) => l.reference !== null);
  const unreferenced: ContentKeys = unreferencedLines.length > 0 ? await sameContent(db, accountId, unreferencedLines) : new Map();
  const newReferences: ContentKeys = newReferenceLines.length > 0 ? await otherFormats(db, accountId, format, newReferenceLines) : new Map();
  const taken = new Set(lines.flatMap((l) => (l.duplicate_of === null ? [] : [l.duplicate_of])));
  for (const line of open) {
    const pool = line.reference === null ? unreferenced : newReferences;
    const ids = pool.get(contentKey(line.occurred_on, line.amount_cents, normaliseDescription(line.description))) ?? [];
    const match = ids.find((id) => !taken.has(id));
    if (match !== undefined) taken.add(match);
    line.duplicate_of = match ?? null;
  }
}

/** The dates of `lines` as a PostgreSQL date[] literal. */
const datesOf = (lines: Plan['lines']) => `{${[...new Set(lines.map((l) => l.occurred_on))].join(',')}}`;

/** Every transaction on the account on the lines' dates, and every line linked before, by content. */
async function sameContent(db: Db, accountId: number, lines: Plan['lines']): Promise<ContentKeys> {
  const dates = datesOf(lines);
  const result = await db.execute(sql`
    select t.id, t.occurred_on::text as occurred_on, t.description, sum(e.amount_cents)::text as amount
    from ${entries} e join ${transactions} t on t.id = e.transaction_id
    where e.account_id = ${accountId} and e.occurred_on = any(${dates}::date[])
    group by t.id
    order by t.id`);
  const linked = await db.execute(sql`
    select l.transaction_id as id, l.occurred_on::text as occurred_on, l.description_key, l.amount_cents::text as amount
    from ${importLines} l
    where l.account_id = ${accountId} and l.linked and l.occurred_on = any(${dates}::date[])
    order by l.id`);
  return contentKeys(result, linked);
}

/**
 * D16, another format, the same line: the transactions on the account on the lines' dates that an
 * import of this account in another format created or linked, by content (a linked one by its
 * line's own content too). An import made before formats were recorded (its import_lines row
 * without a format, or, older still, only a bank reference) counts as another format.
 */
async function otherFormats(db: Db, accountId: number, format: StatementFormat, lines: Plan['lines']): Promise<ContentKeys> {
  const dates = datesOf(lines);
  const result = await db.execute(sql`
    select t.id, t.occurred_on::text as occurred_on, t.description, sum(e.amount_cents)::text as amount
    from ${entries} e join ${transactions} t on t.id = e.transaction_id
    where e.account_id = ${accountId} and e.occurred_on = any(${dates}::date[])
      and (
        exists (select 1 from ${importLines} l where l.transaction_id = t.id and l.account_id = ${accountId} and l.format is distinct from ${format})
        or (
          exists (select 1 from ${importReferences} r where r.transaction_id = t.id and r.account_id = ${accountId})
          and not exists (select 1 from ${importLines} l where l.transaction_id = t.id and l.account_id = ${accountId})
        )
      )
    group by t.id
    order by t.id`);
  const linked = await db.execute(sql`
    select l.transaction_id as id, l.occurred_on::text as occurred_on, l.description_key, l.amount_cents::text as amount
    from ${importLines} l
    where l.account_id = ${accountId} and l.linked and l.format is distinct from ${format} and l.occurred_on = any(${dates}::date[])
    order by l.id`);
  return contentKeys(result, linked);
}

/** Transactions (their own content) and linked lines (the line's content) keyed alike, lowest id first. */
function contentKeys(transactionRows: unknown, linkedRows: unknown): ContentKeys {
  const candidates: ContentKeys = new Map();
  for (const row of rowsOf<{ id: number; occurred_on: string; description: string; amount: string }>(transactionRows)) {
    addCandidate(candidates, contentKey(row.occurred_on, row.amount, normaliseDescription(row.description)), Number(row.id));
  }
  for (const row of rowsOf<{ id: number; occurred_on: string; description_key: string; amount: string }>(linkedRows)) {
    addCandidate(candidates, contentKey(row.occurred_on, row.amount, row.description_key), Number(row.id));
  }
  return candidates;
}

const DAY_MS = 86_400_000;
const daysBetween = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) / DAY_MS;

/**
 * D16, entries typed by hand before the statement came: each line that is not a duplicate, in
 * file order, takes as `match_of` the transaction nearest in date (then the lowest id) that no
 * earlier line took and no duplicate of this statement is, among those with an entry of the
 * line's signed amount on the account within `matchDays` days, typed by hand (no import created
 * or linked it: neither import_lines nor import_references names it) and not reconciled.
 */
async function findMatches(db: Db, accountId: number, lines: Plan['lines'], matchDays: number): Promise<void> {
  const open = lines.filter((l) => l.duplicate_of === null);
  if (open.length === 0) return;
  const dates = open.map((l) => l.occurred_on).sort();
  const amounts = `{${[...new Set(open.map((l) => l.amount_cents))].join(',')}}`;
  const result = await db.execute(sql`
    select e.transaction_id as id, e.occurred_on::text as occurred_on, e.amount_cents::text as amount
    from ${entries} e
    where e.account_id = ${accountId}
      and e.occurred_on between ${dates[0]}::date - ${matchDays}::integer and ${dates.at(-1)}::date + ${matchDays}::integer
      and e.amount_cents = any(${amounts}::bigint[])
      and not exists (select 1 from ${importLines} l where l.transaction_id = e.transaction_id)
      and not exists (select 1 from ${importReferences} r where r.transaction_id = e.transaction_id)
      and not exists (select 1 from ${entries} x where x.transaction_id = e.transaction_id and x.reconciliation_id is not null)
    order by e.transaction_id`);
  const candidates = rowsOf<{ id: number; occurred_on: string; amount: string }>(result).map((r) => ({
    id: Number(r.id),
    occurred_on: r.occurred_on,
    amount: Number(r.amount),
  }));
  const taken = new Set(lines.flatMap((l) => (l.duplicate_of === null ? [] : [l.duplicate_of])));
  for (const line of open) {
    let best: { id: number; days: number } | undefined;
    for (const c of candidates) {
      if (c.amount !== line.amount_cents || taken.has(c.id)) continue;
      const days = daysBetween(c.occurred_on, line.occurred_on);
      if (days > matchDays) continue;
      if (!best || days < best.days || (days === best.days && c.id < best.id)) best = { id: c.id, days };
    }
    if (best) {
      taken.add(best.id);
      line.match_of = best.id;
    }
  }
}

/**
 * D20 closed periods: `closed_through`, read through the database's own function, which holds a
 * shared lock on it until the transaction ends, so a move of it waits for this import (or this
 * import for the move): the check and the write see the same date.
 */
async function closedThrough(db: Db): Promise<string | null> {
  const rows = rowsOf<{ closed: string | null }>(await db.execute(sql`select ledger_closed_through()::text as closed`));
  return rows[0]?.closed ?? null;
}

/**
 * D16 (issue 37): the account's last reconciliation's statement_date; a line dated on or before it
 * falls in a period the bank and the book were agreed on, and importing it changes that balance.
 */
async function reconciledThrough(db: Db, accountId: number): Promise<string | null> {
  const [last] = await db
    .select({ on: reconciliations.statementDate })
    .from(reconciliations)
    .where(eq(reconciliations.accountId, accountId))
    .orderBy(desc(reconciliations.statementDate), desc(reconciliations.id))
    .limit(1);
  return last?.on ?? null;
}

async function plan(db: Db, request: ImportPreviewRequest): Promise<Plan> {
  const statement = await readStatement(db, request);
  await markDuplicates(db, request.account_id, request.format, statement.lines);
  const reconciled = await reconciledThrough(db, request.account_id);
  if (reconciled !== null) for (const line of statement.lines) line.reconciled_period = line.occurred_on <= reconciled;
  // D20: a line that would write (create or link) dated on or before closed_through is the
  // line's fault, named here, before the database's trigger would refuse the whole import.
  const closed = await closedThrough(db);
  if (closed !== null) {
    const inside = statement.lines.filter((l) => l.duplicate_of === null && l.occurred_on <= closed);
    for (const line of inside) statement.errors.push({ line: line.line, error: `line ${line.line}: the books are closed through ${closed}` });
    statement.lines = statement.lines.filter((l) => !inside.includes(l));
  }
  await findMatches(db, request.account_id, statement.lines, request.match_days);
  statement.errors.sort((a, b) => a.line - b.line);
  return statement;
}

const withoutReference = ({ reference: _, ...line }: Plan['lines'][number]): PreviewLine => line;

/**
 * D16 statement balances beside the book's: the statement's balances in the account's natural
 * sign (D6), and the account's balance on the closing date as it would be after this import: the
 * book's entries up to that date plus the lines that would be created; a duplicate is in the book
 * already, and a line with a match_of counts once, as the hand entry it would be linked to.
 */
async function balancesOf(db: Db, accountId: number, statement: Plan): Promise<Pick<Preview, 'statement' | 'book_closing_cents' | 'agrees'>> {
  const natural = (b: StatedBalance | null) => b && { on: b.on, amount_cents: naturalBalance(statement.kind, b.amount_cents) + 0 };
  const { opening, closing } = statement.balances;
  if (!closing) return { statement: { opening: natural(opening), closing: null }, book_closing_cents: null, agrees: null };
  const rows = rowsOf<{ total: string | null }>(
    await db.execute(sql`select sum(amount_cents)::text as total from ${entries} where account_id = ${accountId} and occurred_on <= ${closing.on}::date`),
  );
  const added = statement.lines
    .filter((l) => l.duplicate_of === null && l.match_of === null && l.occurred_on <= closing.on)
    .reduce((sum, l) => sum + l.amount_cents, 0);
  const book = naturalBalance(statement.kind, Number(rows[0]?.total ?? 0) + added) + 0;
  const stated = natural(closing)!;
  return { statement: { opening: natural(opening), closing: stated }, book_closing_cents: book, agrees: stated.amount_cents === book };
}

/** `POST /imports/preview`: every line as it would be booked, with the statement's balances beside the book's; nothing written. */
export async function previewImport(db: Db, request: ImportPreviewRequest): Promise<Preview> {
  const statement = await plan(db, request);
  return {
    lines: statement.lines.map(withoutReference),
    errors: statement.errors,
    date_format: statement.dateFormat,
    ...(await balancesOf(db, request.account_id, statement)),
  };
}

/**
 * `POST /imports`: every new line of the statement written in one database transaction, each with
 * its change record (D15) and its bank reference; any line at fault and nothing is written.
 * Imports to one account are serialised, so the same file sent twice at once is imported once.
 */
export async function importStatement(db: Db, request: ImportRequest, author: Author): Promise<v.InferOutput<typeof ImportResult>> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${IMPORT_LOCK}, ${request.account_id})`);
    const { lines, errors } = await plan(tx, request);
    const linkedLines = chosenMatches(lines, request.matches ?? [], errors);
    if (errors.length > 0) {
      errors.sort((a, b) => a.line - b.line);
      const count = errors.length === 1 ? 'a line' : `${errors.length} lines`;
      throw invalidLines(`the statement was not imported: ${count} cannot be booked`, errors);
    }
    const fresh = lines.filter((l) => l.duplicate_of === null && !linkedLines.has(l));
    const created = await writeLines(tx, request.account_id, request.format, fresh, author);
    await writeLinks(tx, request.account_id, request.format, lines.filter((l) => linkedLines.has(l)));
    return {
      created,
      duplicates: lines.filter((l) => l.duplicate_of !== null).map((l) => l.line),
      errors: [],
      ...(request.matches && { linked: lines.flatMap((l) => (linkedLines.has(l) ? [l.match_of!] : [])) }),
    };
  });
}

/**
 * D16 `matches`: the lines to link, each pair the preview's own `match_of` of its line; any other
 * pair (no such line, another transaction, a line named twice) is the line's error, added to
 * `errors`, so nothing is written.
 */
function chosenMatches(lines: Plan['lines'], matches: NonNullable<ImportRequest['matches']>, errors: LineError[]): Set<PlannedLine> {
  const byLine = new Map(lines.map((l) => [l.line, l]));
  const faulty = new Set(errors.map((e) => e.line));
  const chosen = new Set<PlannedLine>();
  for (const { line: n, transaction_id: id } of matches) {
    const line = byLine.get(n);
    // A line at fault already says why; its pair adds nothing.
    if (faulty.has(n)) continue;
    if (line !== undefined && chosen.has(line)) errors.push({ line: n, error: `line ${n}: matches names this line twice` });
    else if (line === undefined) errors.push({ line: n, error: `line ${n}: there is no line ${n} to link in the statement` });
    else if (line.match_of !== id) {
      const offered = line.match_of === null ? 'it matches no transaction typed by hand' : `its match is transaction ${line.match_of}`;
      errors.push({ line: n, error: `line ${n}: transaction ${id} is not a match of this line (${offered})` });
    } else chosen.add(line);
  }
  return chosen;
}

/**
 * D16: lines linked to transactions typed by hand. The transaction is left as it is (so no change
 * record: nothing of it changed); the line's bank reference and its own date, amount and
 * description are recorded against it, so the next import of the statement finds the line as a
 * duplicate, and the transaction is no longer typed by hand.
 */
async function writeLinks(db: Db, accountId: number, format: StatementFormat, lines: Plan['lines']): Promise<void> {
  if (lines.length === 0) return;
  const json = JSON.stringify(lines.map((l, n) => ({ n, id: l.match_of, reference: l.reference, occurred_on: l.occurred_on, amount_cents: l.amount_cents, key: normaliseDescription(l.description) })));
  await insertReferences(db, accountId, json);
  await insertImportLines(db, accountId, format, json, true);
}

/** Bank references of lines (`json`: records with id, reference), each against its transaction. */
async function insertReferences(db: Db, accountId: number, json: string): Promise<void> {
  await db.execute(sql`
    insert into ${importReferences} (account_id, reference, transaction_id)
    select ${accountId}::integer, r.reference, r.id
    from jsonb_to_recordset(${json}::jsonb) as r(id integer, reference text)
    where r.reference is not null`);
}

/** D16: one import_lines row per line (`json`: records with n, id, occurred_on, amount_cents, key), created or linked, with the statement's format. */
async function insertImportLines(db: Db, accountId: number, format: StatementFormat, json: string, linked: boolean): Promise<void> {
  await db.execute(sql`
    insert into ${importLines} (account_id, transaction_id, occurred_on, amount_cents, description_key, linked, format)
    select ${accountId}::integer, r.id, r.occurred_on, r.amount_cents, r.key, ${linked}::boolean, ${format}::text
    from jsonb_to_recordset(${json}::jsonb) as r(n integer, id integer, occurred_on date, amount_cents bigint, key text)
    order by r.n`);
}

/** The new transactions, their entries, change records and references, in bulk; their ids in line order. */
async function writeLines(db: Db, accountId: number, format: StatementFormat, lines: Plan['lines'], author: Author): Promise<number[]> {
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
    return { ...shape, n: i, reference: line.reference, amount_cents: line.amount_cents, key: normaliseDescription(line.description), after: shape };
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
  await insertReferences(db, accountId, json);
  await insertImportLines(db, accountId, format, json, false);
  return ids;
}
