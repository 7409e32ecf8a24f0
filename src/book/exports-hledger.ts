import type { Db } from '../db/database';
import type { AccountKind } from '../db/schema';
import { accountNames, decimal, journalCommodity, oneLine, readBook, type JournalQuery } from './exports';

// D17: GET /export/ledger.journal, a journal hledger reads (checked with `hledger -f FILE bal` in
// tests/exports.test.ts).

const TOP_LEVEL: Record<AccountKind, string> = {
  asset: 'assets',
  liability: 'liabilities',
  equity: 'equity',
  income: 'income',
  expense: 'expenses',
};

/**
 * An account name as one hledger component: `:` separates components and two spaces end a name
 * in a posting, so each colon and control character becomes a space, runs of white space one
 * space, and the ends are trimmed. Everything else (accents, `=`, quotes, `;`) hledger reads as is.
 */
export function hledgerComponent(name: string): string {
  return name.replace(/[\p{Cc}:]/gu, ' ').replace(/\s+/gu, ' ').trim();
}

/**
 * A description on a transaction's first line. hledger has no escape there: `;` anywhere starts a
 * comment, so each becomes `,`; line breaks become spaces. The transaction id goes first as the
 * transaction's code, `(42)`, so a description that starts with `*`, `!` or `(` is not read as a
 * status or a code.
 */
function hledgerDescription(text: string): string {
  return oneLine(text).replace(/;/g, ',');
}

/** D17: the journal: the commodity's format, every account declared, then one transaction per transaction; written as read. */
export async function* hledgerJournal(db: Db, query: JournalQuery): AsyncGenerator<string> {
  const commodity = await journalCommodity(db, query);
  let names = new Map<number, string>();
  for await (const part of readBook(db, query)) {
    if ('accounts' in part) {
      names = accountNames(part.accounts, TOP_LEVEL, hledgerComponent);
      yield [`commodity 1000.00 ${commodity}`, '', ...part.accounts.map((a) => `account ${names.get(a.id)!}`), ''].join('\n');
      continue;
    }
    const lines: string[] = [];
    for (const t of part.transactions) {
      lines.push('', `${t.occurredOn} (${t.id}) ${hledgerDescription(t.description)}`);
      for (const e of t.entries) lines.push(`    ${names.get(e.account.id)!}  ${decimal(e.amountCents)} ${commodity}`);
    }
    yield `${lines.join('\n')}\n`;
  }
}
