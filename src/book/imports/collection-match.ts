import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/database';
import { directDebitItems, directDebits } from '../../db/schema';
import { IN_TRANSIT_ACCOUNT } from '../direct-debits';
import { wholeWords } from './people-match';
import { foldCase } from './rules';
import type { StatementLine } from './statement';

// D27: the bank's credit of a direct-debit batch, imported later, is matched to its collection: the
// amount is the collection's total, and the line's text holds its message id or its payment
// information id (`<message id>.P1`, as the file names it) as a whole word. Its counter account is
// "Direct debits in transit", so the import moves the total from there to the bank. A returned
// debit (a negative line naming a mandate) needs nothing here: it is a person's line (D27's order)
// and they owe again.

export interface CollectionMatcher {
  /** Message ids and payment information ids, case folded, with the collection's total. */
  byId: Map<string, number>;
  lengths: Set<number>;
  transitAccountId: number;
}

/** The collections a statement can settle, in one query; null when the book has none (nothing is asked per line). */
export async function loadCollectionMatcher(db: Db, statementAccountId: number): Promise<CollectionMatcher | null> {
  const rows = rowsOf<{ message_id: string; total_cents: string | number; transit_id: number | null }>(await db.execute(sql`
    select d.message_id, (select coalesce(sum(i.amount_cents), 0) from ${directDebitItems} i where i.direct_debit_id = d.id)::bigint as total_cents,
      (select a.id from accounts a where lower(a.name) = lower(${IN_TRANSIT_ACCOUNT}) and a.kind = 'asset') as transit_id
    from ${directDebits} d`));
  const transit = rows[0]?.transit_id;
  if (!transit || transit === statementAccountId) return null;
  const matcher: CollectionMatcher = { byId: new Map(), lengths: new Set(), transitAccountId: transit };
  for (const row of rows) {
    for (const id of [row.message_id, `${row.message_id}.P1`].map(foldCase)) {
      matcher.byId.set(id, Number(row.total_cents));
      matcher.lengths.add(id.length);
    }
  }
  return matcher;
}

/** The in-transit account when `line` is a collection's batch credit, else null. */
export function matchCollection(matcher: CollectionMatcher | null, line: Pick<StatementLine, 'description' | 'amount_cents'>): number | null {
  if (matcher === null || line.amount_cents <= 0) return null;
  for (const word of wholeWords(foldCase(line.description), matcher.lengths)) {
    if (matcher.byId.get(word) === line.amount_cents) return matcher.transitAccountId;
  }
  return null;
}
