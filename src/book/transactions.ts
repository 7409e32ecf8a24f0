import { eq, sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { preparedStatement, rawRowBatches, rowsOf, type Db } from '../db/database';
import { accounts, changes, entries, INT4_MAX, transactions, users } from '../db/schema';
import type { Author } from './changes';
import { invalid, notFound } from '../errors';
import { dateString, requiredText } from '../text';
import { requestSchema } from '../shapes';
import type { Transaction } from './views';

// D6 limits of ours.
export const DESCRIPTION_MAX = 500;
export const ENTRIES_MIN = 2;
export const ENTRIES_MAX = 100;
/** |amount_cents| ≤ 10^15, so 100 entries sum far inside both bigint and a float's exact range. */
export const AMOUNT_MAX = 10 ** 15;
export { INT4_MAX };

const EntrySchema = v.object(
  {
    account_id: v.pipe(
      v.number('account_id must be an integer'),
      v.integer('account_id must be an integer'),
      // Larger ids cannot name an account (integer column); refused here, not by a driver error.
      v.minValue(1, 'account_id must be a positive integer'),
      v.maxValue(INT4_MAX, 'account_id names no account'),
    ),
    amount_cents: v.pipe(
      v.number('amount_cents must be an integer'),
      v.integer('amount_cents must be an integer'),
      v.minValue(-AMOUNT_MAX, `amount_cents must be between -${AMOUNT_MAX} and ${AMOUNT_MAX}`),
      v.maxValue(AMOUNT_MAX, `amount_cents must be between -${AMOUNT_MAX} and ${AMOUNT_MAX}`),
    ),
  },
  'an entry must be an object with account_id and amount_cents',
);

/** A transaction's entries (spec: Transaction; D6), also a schedule's (D21). */
export const EntriesSchema = v.pipe(
  v.array(EntrySchema, 'entries must be an array'),
  v.minLength(ENTRIES_MIN, `a transaction needs at least ${ENTRIES_MIN} entries`),
  v.maxLength(ENTRIES_MAX, `a transaction has at most ${ENTRIES_MAX} entries`),
);

/** Create body `NewTransaction` (spec: Transaction; D6). The balance is checked by checkBalanced. */
export const NewTransactionSchema = requestSchema('NewTransaction', v.object(
  {
    occurred_on: dateString('occurred_on'),
    description: requiredText('description', DESCRIPTION_MAX),
    entries: EntriesSchema,
  },
  'the request body must be a JSON object',
));
export type NewTransaction = v.InferOutput<typeof NewTransactionSchema>;

export const TransactionRangeSchema = v.object({
  from: v.optional(dateString('from')),
  to: v.optional(dateString('to')),
});
export type TransactionRange = v.InferOutput<typeof TransactionRangeSchema>;

/** Spec: entries not summing to zero give 400, and the message states the entry count and the sum. */
export function checkBalanced(input: Pick<NewTransaction, 'entries'>): void {
  const sum = input.entries.reduce((total, e) => total + BigInt(e.amount_cents), 0n);
  if (sum !== 0n) {
    throw invalid(`entries must sum to zero: ${input.entries.length} entries sum to ${sum}`);
  }
}

/**
 * Header, entries and the change record (D15) are committed together; the deferred trigger checks
 * the balance again at commit (P0001), and foreign keys refuse unknown accounts (23503): both
 * become 400.
 */
export async function postTransaction(db: Db, input: NewTransaction, author: Author): Promise<number> {
  checkBalanced(input);
  return insertTransaction(db, input, author);
}

/**
 * Who posts, as a one-row subquery (or none) with at least the columns `user_id`, `email`, `via`
 * and `client_id`, and the values of its placeholders. Whoever knows the caller builds it (the
 * identity module for a bearer token: http/ hands it in), so that the check of a credential runs
 * inside the insert, one round trip, without the book knowing what a credential is.
 */
export interface CallerQuery<Row> {
  query: SQL;
  values: Record<string, unknown>;
  /** Never read: carries the type of the subquery's row. */
  readonly row?: Row;
}

/**
 * The post of a caller that the insert itself finds (`caller`): the id, beside every column of the
 * caller's row; undefined, with nothing written, when the subquery finds no one.
 */
export async function postTransactionAs<Row>(
  db: Db,
  input: NewTransaction,
  caller: CallerQuery<Row>,
): Promise<(Row & { id: number }) | undefined> {
  checkBalanced(input);
  const [row] = await insertByCaller<Row>(caller.query)(db, { ...transactionValues(input), ...caller.values });
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/** The bare insert, without our own balance check: the database's trigger is the last word. */
export async function insertTransaction(db: Db, input: NewTransaction, author: Author, scheduleId: number | null = null): Promise<number> {
  const [row] = await insertByAuthor(db, {
    ...transactionValues(input),
    author_id: author.userId,
    author_email: author.email,
    author_via: author.via,
    author_client_id: author.clientId,
    schedule_id: scheduleId,
  });
  return Number(row!.id);
}

/**
 * One statement (a data-modifying CTE) writes the header, its entries and its change record, so a
 * post costs one round trip and commits atomically on its own; entries get their ids in the order
 * given. The author is the one-row subquery `caller` (`user_id`, `email`, `via`, `client_id`;
 * none: nothing is written and no row comes back), whose columns come back beside the new id. The
 * record's `after` is the transaction's read shape, built from what was just written. The entries
 * travel as two array literals (validated integers only), so the statement's text never changes:
 * it is rendered once and its prepared form reused.
 */
function insertStatement(caller: SQL, scheduleId: SQL): SQL {
  return sql`
    with caller as (${caller}), header as (
      insert into ${transactions} (occurred_on, description, created_by)
      select ${sql.placeholder('occurred_on')}::date, ${sql.placeholder('description')}::text, caller.user_id from caller
      returning id, occurred_on, description
    ), written as (
      insert into ${entries} (transaction_id, occurred_on, account_id, amount_cents)
      select header.id, header.occurred_on, line.account_id, line.amount_cents
      from header, unnest(${sql.placeholder('account_ids')}::integer[], ${sql.placeholder('amounts')}::bigint[])
        with ordinality as line(account_id, amount_cents, n)
      order by line.n
      returning id, account_id, amount_cents
    ), logged as (
      insert into ${changes} (actor_email, via, client_id, subject, subject_id, action, schedule_id, after)
      select caller.email, caller.via, caller.client_id, 'transaction', header.id, 'create', ${scheduleId}, jsonb_build_object(
        'id', header.id, 'occurred_on', header.occurred_on, 'description', header.description,
        'created_by_email', caller.email,
        'entries', (
          select coalesce(jsonb_agg(jsonb_build_object('account_id', w.account_id, 'account_name', a.name, 'amount_cents', w.amount_cents) order by w.id), '[]'::jsonb)
          from written w join ${accounts} a on a.id = w.account_id
        ))
      from header, caller
    )
    select header.id, caller.* from header, caller`;
}

const insertByAuthor = preparedStatement<{ id: number }>(
  insertStatement(sql`select ${sql.placeholder('author_id')}::integer as user_id, ${sql.placeholder('author_email')}::text as email,
    ${sql.placeholder('author_via')}::text as via, ${sql.placeholder('author_client_id')}::text as client_id`,
  sql`${sql.placeholder('schedule_id')}::integer`),
);
/** The insert of each caller subquery handed in, rendered and prepared once (a handful of constants). */
const insertsByCaller = new Map<SQL, (db: Db, values: Record<string, unknown>) => Promise<unknown[]>>();
function insertByCaller<Row>(caller: SQL): (db: Db, values: Record<string, unknown>) => Promise<(Row & { id: number })[]> {
  let insert = insertsByCaller.get(caller);
  if (!insert) insertsByCaller.set(caller, (insert = preparedStatement(insertStatement(caller, sql`null::integer`))));
  return insert as (db: Db, values: Record<string, unknown>) => Promise<(Row & { id: number })[]>;
}

/**
 * Entries as the two array literals a statement unnests (validated integers only), so that its
 * text is the same whatever the number of entries.
 */
export function entryArrays(lines: NewTransaction['entries']): { account_ids: string; amounts: string } {
  return {
    account_ids: `{${lines.map((e) => e.account_id).join(',')}}`,
    amounts: `{${lines.map((e) => e.amount_cents).join(',')}}`,
  };
}

function transactionValues(input: NewTransaction): Record<string, string> {
  return { occurred_on: input.occurred_on, description: input.description, ...entryArrays(input.entries) };
}

export type TransactionView = v.InferOutput<typeof Transaction>;

/**
 * The read shape (spec: Transaction) of the row `t` of transactions, its author's user row `u`
 * left-joined: written by PostgreSQL as JSON, entries by entry id. `more` adds keys after the
 * spec's (the paged list's `reconciled`, D15/D20).
 */
export function transactionJson(more: SQL = sql``): SQL {
  return sql`json_build_object(
  'id', t.id, 'occurred_on', t.occurred_on, 'description', t.description,
  'created_by_email', u.email, 'entries', coalesce((
    select json_agg(json_build_object('account_id', e.account_id, 'account_name', a.name, 'amount_cents', e.amount_cents) order by e.id)
    from ${entries} e join ${accounts} a on a.id = e.account_id
    where e.transaction_id = t.id
  ), '[]'::json)${more})`;
}
export const TRANSACTION_JSON = transactionJson();

/**
 * Transactions per batch of the list's cursor: a list of fewer is answered in one piece; the whole
 * book goes out a batch at a time. (A short range never reaches the cursor: `isShortRange`.)
 */
export const LIST_BATCH_ROWS = 1_000;

/** The users whose parts `listItems` writes once per statement (the first by id; the rest by primary key). */
const AUTHOR_PARTS_MAX = 1_000;

/**
 * The list's rows: per transaction its date, its id and its read shape as JSON text (`item`), ordered by
 * occurred_on descending then id descending; entries by entry id. The text is byte for byte what
 * json_build_object and json_agg wrote when PostgreSQL built the whole list as one value (`"key" :
 * value`, elements joined by `, `; strings through to_json, the same escaping): tests/
 * transaction-list.test.ts compares the two.
 *
 * Where PostgreSQL's time went (issue 31 item 4) was less the look-ups of each transaction's
 * entries than writing text, per entry above all, the join to accounts inside each transaction's
 * subquery (a hash join there sorted every transaction's two entries apart, and with a few hundred
 * accounts the planner hashed the entries and scanned every account once per transaction: a
 * month's list took 116 to 126 ms of CPU with 505 accounts, against 16 now) and the author's
 * subquery per transaction (a fifth of what was left). So each account's part of an entry,
 * `{"account_id" : …, "account_name" : …, "amount_cents" : `, is written once per statement into a
 * jsonb object keyed by account id, and an entry is a look-up in it (a binary search, however many
 * accounts), its amount and two concatenations, read from the index in entry order with no join
 * and no sort. The author's part, `, "created_by_email" : …, "entries" : [`, is looked up the same
 * way among at most AUTHOR_PARTS_MAX users, so that the object's cost per statement stays bounded;
 * COALESCE runs the subquery by primary key only for an author it misses (a club of more users, or
 * none: a removed author). Concatenation costs less than json_build_object's look-up of every
 * argument's type on every call. `nulls last` matches the index's order (the columns are never
 * null), so the rows come from the index in the list's order, with no sort before the first row:
 * the whole book can stream. Absent bounds are open and an absent limit is none, so the
 * statement's text never changes and its prepared form is reused.
 */
function listItems(range: TransactionRange, limit?: number): SQL {
  return sql`
    with account_parts as materialized (
      select jsonb_object_agg(id, '{"account_id" : ' || id || ', "account_name" : ' || to_json(name)::text || ', "amount_cents" : ') as part_of
      from ${accounts}
    ), author_parts as materialized (
      select jsonb_object_agg(id, ', "created_by_email" : ' || to_json(email)::text || ', "entries" : [') as part_of
      from (select id, email from ${users} order by id limit ${AUTHOR_PARTS_MAX}::integer) u
    )
    select t.occurred_on, t.id, '{"id" : ' || t.id || ', "occurred_on" : "' || to_char(t.occurred_on, 'YYYY-MM-DD') || '", "description" : '
      || to_json(t.description)::text
      || coalesce(
        (select part_of from author_parts) ->> t.created_by::text,
        (select ', "created_by_email" : ' || to_json(u.email)::text || ', "entries" : [' from ${users} u where u.id = t.created_by),
        ', "created_by_email" : null, "entries" : [')
      || coalesce((
        select string_agg(line, ', ') from (
          select ((select part_of from account_parts) ->> e.account_id::text) || e.amount_cents || '}' as line
          from ${entries} e
          where e.transaction_id = t.id
          order by e.id
        ) lines
      ), '') || ']}' as item
    from ${transactions} t
    where t.occurred_on >= coalesce(${range.from ?? null}::date, '-infinity'::date)
      and t.occurred_on <= coalesce(${range.to ?? null}::date, 'infinity'::date)
    order by t.occurred_on desc nulls last, t.id desc nulls last
    limit ${limit ?? null}::integer`;
}

/** The list's rows as the cursor reads them: the JSON text alone, a row per transaction. */
function listStatement(range: TransactionRange, limit?: number): SQL {
  return sql`select item from (${listItems(range, limit)}) items`;
}

/**
 * The list (spec: GET /transactions; the same bytes as ever) as JSON in parts, UTF-8, one per batch
 * of the statement's rows: the first part opens the array, the last closes it. One statement, so
 * the list comes from one snapshot (a transaction posted or deleted meanwhile is wholly in or
 * wholly out), read through a cursor on the database itself, so that only a batch or two is ever
 * in memory. A list that fits in one batch is one part, and so is a short range (one statement,
 * joined by day). Stopping early (`return()`) closes the cursor. The text PostgreSQL wrote is
 * passed on as its bytes (postgres.js raw rows), a megabyte a month that the server would
 * otherwise decode into a string and encode back for the response.
 */
export async function* listByteChunks(db: Db, range: TransactionRange, limit?: number, batchRows = LIST_BATCH_ROWS): AsyncGenerator<Buffer> {
  if (isShortRange(range)) {
    yield await shortListBytes(db, range, limit);
    return;
  }
  const batches = rawRowBatches(db, listStatement(range, limit), batchRows);
  let opened = false;
  try {
    // One batch ahead, so that the last part is known as the last and closes the array.
    let current = await batches.next();
    while (!current.done) {
      const next = await batches.next();
      const pieces: Buffer[] = [];
      for (const [item] of current.value) pieces.push(pieces.length === 0 ? (opened ? SEPARATOR : OPEN) : SEPARATOR, item!);
      if (pieces.length > 0) opened = true;
      if (next.done) {
        yield opened ? Buffer.concat([...pieces, CLOSE]) : EMPTY;
        return;
      }
      yield Buffer.concat(pieces);
      current = next;
    }
    yield EMPTY;
  } finally {
    await batches.return(undefined);
  }
}

const OPEN = Buffer.from('[');
const SEPARATOR = Buffer.from(', ');
const CLOSE = Buffer.from(']');
const EMPTY = Buffer.from('[]');

/** `listByteChunks` as text: parts end between transactions, never inside a character. */
export async function* listChunks(db: Db, range: TransactionRange, limit?: number, batchRows = LIST_BATCH_ROWS): AsyncGenerator<string> {
  yield* mapParts(listByteChunks(db, range, limit, batchRows), (part) => part.toString('utf8'));
}

async function* mapParts<T>(parts: AsyncGenerator<Buffer>, map: (part: Buffer) => T): AsyncGenerator<T> {
  try {
    for await (const part of parts) yield map(part);
  } finally {
    await parts.return(undefined);
  }
}

/**
 * A range of at most SHORT_RANGE_DAYS (a month, a quarter) is read in one statement, not through
 * the cursor, and answered in one piece; a quarter of a busy book is a few megabytes. PostgreSQL
 * joins each day's transactions (`string_agg` ordered by id) and the server joins the days.
 * Measured for a month (issue 31 item 4): one value of the whole list cost PostgreSQL 1.5 to 5 ms
 * more (megabyte copies and page faults) and the server 1 to 1.5 ms less, a wash in total, so the
 * work stays off the shared database; 4,000 rows, one per transaction, cost the server 3.5 to 5 ms
 * more.
 */
const SHORT_RANGE_DAYS = 92;
const DAY_MS = 86_400_000;

function isShortRange(range: TransactionRange): boolean {
  if (range.from === undefined || range.to === undefined) return false;
  return (Date.parse(range.to) - Date.parse(range.from)) / DAY_MS < SHORT_RANGE_DAYS;
}

/**
 * The list of a short range as one JSON text (UTF-8), from one statement. The day's transactions
 * are joined by id, newest first, by the aggregate's own ORDER BY (issue 36 item 6): the order of
 * the rows an aggregate reads is not promised, whatever the subquery says. `nulls last` as the
 * index has it: PostgreSQL 16 and later then see the rows come in that order and add no sort (with
 * plain `desc` PostgreSQL 18 added an incremental sort); 15 sorts each day's rows itself.
 */
async function shortListBytes(db: Db, range: TransactionRange, limit?: number): Promise<Buffer> {
  const statement = sql`
    select string_agg(item, ', ' order by id desc nulls last) as day
    from (${listItems(range, limit)}) items
    group by occurred_on
    order by occurred_on desc nulls last`;
  const pieces: Buffer[] = [];
  for await (const rows of rawRowBatches(db, statement, Infinity)) {
    for (const [day] of rows) pieces.push(pieces.length === 0 ? OPEN : SEPARATOR, day!);
  }
  return pieces.length === 0 ? EMPTY : Buffer.concat([...pieces, CLOSE]);
}

/** The whole list as one JSON text (MCP, and the route when it cannot stream). */
export async function listTransactionsJson(db: Db, range: TransactionRange, limit?: number): Promise<string> {
  let text = '';
  for await (const part of listChunks(db, range, limit)) text += part;
  return text;
}

export async function listTransactions(db: Db, range: TransactionRange, limit?: number): Promise<TransactionView[]> {
  return JSON.parse(await listTransactionsJson(db, range, limit)) as TransactionView[];
}
