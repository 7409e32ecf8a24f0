import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { cursorRowsWithoutJit, type Db } from '../db/database';
import { accounts, entries, transactions, type AccountKind } from '../db/schema';
import { PeriodSchema } from './reports';
import { getSettings } from './settings';

// D17: books out. Every export is read by one ordered statement (readBook): first every account,
// then the period's entries with their transactions. One statement is one snapshot, so an account
// created and used while the export runs is either wholly in it or not at all. It is read through
// a cursor, a batch of rows at a time, and each file is written as it is read: a book of a million
// entries is never held in memory at once (exporting 1.43 million entries took the server to 2.7 GB
// before; now 0.22 GB). The three
// formats are src/book/exports-csv.ts, exports-hledger.ts and exports-beancount.ts.

const COMMODITY = 'commodity must be an ISO 4217 code: three upper-case letters (EUR)';

/** D17: the journals' query: the period of the reports (D7) and the commodity, by default the book's currency (D20). */
export const JournalExportSchema = v.object({
  ...PeriodSchema.entries,
  commodity: v.optional(v.pipe(v.string(COMMODITY), v.regex(/^[A-Z]{3}$/, COMMODITY))),
});

export type Period = v.InferOutput<typeof PeriodSchema>;
export type JournalQuery = v.InferOutput<typeof JournalExportSchema>;

/** D20: the commodity a journal is written in: the one asked for, else the book's currency. */
export async function journalCommodity(db: Db, query: JournalQuery): Promise<string> {
  return query.commodity ?? (await getSettings(db)).currency;
}

export interface ExportAccount {
  id: number;
  name: string;
  kind: AccountKind;
}

export interface ExportEntry {
  entryId: number;
  account: ExportAccount;
  /** The stored signed amount (D6: + debit, − credit), exact. */
  amountCents: bigint;
}

/** One transaction of the export with its entries (entry id order). */
export interface ExportTransaction {
  id: number;
  occurredOn: string;
  description: string;
  entries: ExportEntry[];
}

/** Rows read from the database at a time. */
export const EXPORT_BATCH_ROWS = 1_000;

interface BookRow {
  section: number;
  account_id: number;
  name: string;
  kind: AccountKind;
  entry_id: number | null;
  transaction_id: number | null;
  occurred_on: string | null;
  description: string | null;
  amount: string | null;
}

/**
 * D17: every account (in the GET /accounts order), then the period's transactions oldest first
 * (occurred_on, then id) with their entries (entry id order), a batch at a time. The accounts come
 * first, in the first part; each later part holds whole transactions only.
 */
export async function* readBook(db: Db, period: Period): AsyncGenerator<{ accounts: ExportAccount[] } | { transactions: ExportTransaction[] }> {
  // Absent bounds are open, so the statement's text is the same for every period.
  const inPeriod = sql`e.occurred_on >= coalesce(${period.from ?? null}::date, '-infinity'::date)
      and e.occurred_on <= coalesce(${period.to ?? null}::date, 'infinity'::date)`;
  const statement = sql`
    select 0 as section, a.id as account_id, a.name, a.kind, null::integer as entry_id, null::integer as transaction_id,
      null::text as occurred_on, null::text as description, null::text as amount,
      row_number() over (order by a.kind, lower(a.name) collate "C", a.name collate "C") as rank
    from ${accounts} a
    union all
    select 1, a.id, a.name, a.kind, e.id, e.transaction_id, e.occurred_on::text, t.description, e.amount_cents::text, 0
    from ${entries} e join ${transactions} t on t.id = e.transaction_id join ${accounts} a on a.id = e.account_id
    where ${inPeriod}
    order by section, rank, occurred_on, transaction_id, entry_id`;
  const byId = new Map<number, ExportAccount>();
  let open: ExportTransaction | undefined;
  let accountsSent = false;
  for await (const rows of cursorRowsWithoutJit<BookRow>(db, statement, EXPORT_BATCH_ROWS)) {
    const done: ExportTransaction[] = [];
    for (const row of rows) {
      if (row.section === 0) {
        byId.set(row.account_id, { id: row.account_id, name: row.name, kind: row.kind });
        continue;
      }
      if (!accountsSent) {
        accountsSent = true;
        yield { accounts: [...byId.values()] };
      }
      const account = byId.get(row.account_id)!;
      if (open?.id !== row.transaction_id) {
        if (open) done.push(open);
        open = { id: row.transaction_id!, occurredOn: row.occurred_on!, description: row.description ?? '', entries: [] };
      }
      open.entries.push({ entryId: row.entry_id!, account, amountCents: BigInt(row.amount!) });
    }
    if (done.length > 0) yield { transactions: done };
  }
  if (!accountsSent) yield { accounts: [...byId.values()] };
  if (open) yield { transactions: [open] };
}

/** D17: cents as a decimal with two places (`-12.30`, `0.05`, `-0.05`), by integer arithmetic. */
export function decimal(cents: bigint): string {
  const magnitude = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, '0')}`;
}

/**
 * D17: each account's full name in a journal: its kind's top-level name, then its own name as one
 * component (`component`, which may answer '' when nothing of the name can be kept: then
 * `Account-<id>`). Names are unique after conversion: of accounts of one kind whose components
 * coincide, the oldest (lowest id) keeps it and each other gets `-<id>` appended (again, should
 * that be taken too). Deterministic: the same book gives the same names.
 */
export function accountNames(
  accountsOfBook: readonly ExportAccount[],
  topLevel: Record<AccountKind, string>,
  component: (name: string) => string,
): Map<number, string> {
  const byId = [...accountsOfBook].sort((a, b) => a.id - b.id);
  const natural = new Map(byId.map((a) => [a.id, `${topLevel[a.kind]}:${component(a.name) || `Account-${a.id}`}`]));
  const taken = new Set<string>();
  const names = new Map<number, string>();
  for (const a of byId) {
    const name = natural.get(a.id)!;
    if (taken.has(name)) continue;
    taken.add(name);
    names.set(a.id, name);
  }
  for (const a of byId) {
    if (names.has(a.id)) continue;
    let name = `${natural.get(a.id)!}-${a.id}`;
    while (taken.has(name)) name = `${name}-${a.id}`;
    taken.add(name);
    names.set(a.id, name);
  }
  return names;
}

/**
 * A description on one line of a journal: control characters (line breaks, tabs), which the API
 * refuses but a direct edit of the database may have left, become spaces; the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text.replace(/\p{Cc}/gu, ' ').trim();
}
