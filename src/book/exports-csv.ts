import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/database';
import { decimal, readBook, type Period } from './exports';

// D17: GET /export/transactions.csv. RFC 4180 by csv-stringify: CRLF after every record, a field
// quoted when it holds a comma, a quote, CR or LF (csv-stringify quotes the last two only when
// asked: `quoted_match`), a quote inside doubled.

export const CSV_HEADER = ['transaction_id', 'occurred_on', 'description', 'account_id', 'account_name', 'account_kind', 'amount'];

/**
 * D17: a text cell a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, tab or
 * CR) is prefixed with `'` (OWASP, CSV injection). Only text cells: an amount's minus is a number.
 */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** D17: one row per entry, oldest first (occurred_on, transaction id, entry id), amounts as stored; written as read. */
export async function* transactionsCsv(db: Db, period: Period): AsyncGenerator<string> {
  const options = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;
  for await (const part of readBook(db, period)) {
    // The accounts come first, once the statement has answered: the header goes with them.
    if (!('transactions' in part)) {
      yield stringify([CSV_HEADER], options);
      continue;
    }
    const rows = part.transactions.flatMap((t) =>
      t.entries.map((e) => [String(t.id), t.occurredOn, guardFormula(t.description), String(e.account.id), guardFormula(e.account.name), e.account.kind, decimal(e.amountCents)]),
    );
    yield stringify(rows, options);
  }
}
