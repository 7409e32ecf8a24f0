import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { accounts, entries, transactions, type AccountKind } from '../db/schema';
import { PeriodSchema } from './reports';

// D17: books out. Every export is built from one ordered statement (readBook): every account,
// each joined to its entries of the period and their transactions. One statement is one snapshot,
// so an account created and used while the export runs is either wholly in it or not at all. The
// three formats are src/book/exports-csv.ts, exports-hledger.ts and exports-beancount.ts.

const COMMODITY = 'commodity must be an ISO 4217 code: three upper-case letters (EUR)';

/** D17: the journals' query: the period of the reports (D7) and the commodity, default EUR. */
export const JournalExportSchema = v.object({
  ...PeriodSchema.entries,
  commodity: v.optional(v.pipe(v.string(COMMODITY), v.regex(/^[A-Z]{3}$/, COMMODITY)), 'EUR'),
});

export type Period = v.InferOutput<typeof PeriodSchema>;
export type JournalQuery = v.InferOutput<typeof JournalExportSchema>;

export interface ExportAccount {
  id: number;
  name: string;
  kind: AccountKind;
}

export interface ExportEntry {
  transactionId: number;
  occurredOn: string;
  description: string;
  entryId: number;
  account: ExportAccount;
  /** The stored signed amount (D6: + debit, − credit), exact. */
  amountCents: bigint;
}

export interface Book {
  /** Every account, in the GET /accounts order (kind, then name). */
  accounts: ExportAccount[];
  /** The entries of the period, oldest first: occurred_on, then transaction id, then entry id. */
  entries: ExportEntry[];
}

/** D17: every account and the period's entries, from one ordered statement. */
export async function readBook(db: Db, period: Period): Promise<Book> {
  const ranked = db
    .select({
      id: accounts.id,
      name: accounts.name,
      kind: accounts.kind,
      rank: sql<number>`(row_number() over (order by ${accounts.kind}, lower(${accounts.name}) collate "C", ${accounts.name} collate "C"))::int`.as('rank'),
    })
    .from(accounts)
    .as('ranked');
  const inPeriod = and(
    eq(entries.accountId, ranked.id),
    period.from === undefined ? undefined : gte(entries.occurredOn, period.from),
    period.to === undefined ? undefined : lte(entries.occurredOn, period.to),
  );
  const rows = await db
    .select({
      accountId: ranked.id,
      name: ranked.name,
      kind: ranked.kind,
      rank: ranked.rank,
      entryId: entries.id,
      transactionId: entries.transactionId,
      occurredOn: entries.occurredOn,
      description: transactions.description,
      amount: sql<string | null>`${entries.amountCents}::text`,
    })
    .from(ranked)
    .leftJoin(entries, inPeriod)
    .leftJoin(transactions, eq(transactions.id, entries.transactionId))
    .orderBy(asc(entries.occurredOn), asc(entries.transactionId), asc(entries.id), asc(ranked.rank));

  const byId = new Map<number, ExportAccount & { rank: number }>();
  const book: Book = { accounts: [], entries: [] };
  for (const row of rows) {
    let account = byId.get(row.accountId);
    if (!account) byId.set(row.accountId, (account = { id: row.accountId, name: row.name, kind: row.kind, rank: row.rank }));
    // An account without entries in the period comes once, with no entry.
    if (row.entryId === null || row.transactionId === null || row.occurredOn === null || row.amount === null) continue;
    book.entries.push({
      transactionId: row.transactionId,
      occurredOn: row.occurredOn,
      description: row.description ?? '',
      entryId: row.entryId,
      account,
      amountCents: BigInt(row.amount),
    });
  }
  book.accounts = [...byId.values()].sort((a, b) => a.rank - b.rank).map(({ id, name, kind }) => ({ id, name, kind }));
  return book;
}

/** One transaction of the export with its entries (entry id order). */
export interface ExportTransaction {
  id: number;
  occurredOn: string;
  description: string;
  entries: ExportEntry[];
}

/** The entries grouped by transaction: readBook's order keeps each transaction's entries together. */
export function transactionsOf(book: Book): ExportTransaction[] {
  const grouped: ExportTransaction[] = [];
  for (const entry of book.entries) {
    const last = grouped.at(-1);
    if (last?.id === entry.transactionId) last.entries.push(entry);
    else grouped.push({ id: entry.transactionId, occurredOn: entry.occurredOn, description: entry.description, entries: [entry] });
  }
  return grouped;
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
  book: Book,
  topLevel: Record<AccountKind, string>,
  component: (name: string) => string,
): Map<number, string> {
  const byId = [...book.accounts].sort((a, b) => a.id - b.id);
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
