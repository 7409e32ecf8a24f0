import type { Db } from '../db/database';
import type { AccountKind } from '../db/schema';
import { addMonths, listBudgets, type Budget } from './budgets';
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
  const budgetRules = hledgerBudgets(await listBudgets(db), names, commodity);
  if (budgetRules) yield budgetRules;
}

/**
 * D26: every budget as periodic transaction rules, which hledger uses only for `balance --budget`
 * (not for `bal` or `print`, so the books' figures stay as they are). `month` lines: one rule
 * every month from the budget's first month up to the month after its last (hledger's end is
 * exclusive); `period` lines: one rule that falls once, on the first month. hledger has no
 * rollover: a rollover line is planned as its plain amount every month, which is what the report's
 * planned_cents counts too. The postings are unbalanced virtual ones, `(account)`, so that no
 * made-up balancing account appears in the budget report. Amounts are stored signs (D6): a
 * planned income is negative. A line whose account is not among the accounts this export read
 * (created after its snapshot) is left out: the journal names only accounts it declares.
 */
/**
 * The exclusive end of a rule that runs through month `m`: the next month, except after 9999-12
 * (D6's last year), where hledger would read `10000-01` as no date and drop the rule silently; the
 * last day of 9999 ends it as well, the rule falling on the first of each month.
 */
export function ruleEndAfter(m: string): string {
  return m === '9999-12' ? '9999-12-31' : addMonths(m, 1);
}

function hledgerBudgets(budgets: readonly Budget[], names: ReadonlyMap<number, string>, commodity: string): string {
  const rules: string[] = [];
  for (const b of budgets) {
    const posting = (l: Budget['lines'][number]) =>
      `    (${names.get(l.account_id)!})  ${decimal(BigInt(l.amount_cents) * (l.kind === 'income' ? -1n : 1n))} ${commodity}`;
    const known = b.lines.filter((l) => names.has(l.account_id));
    const description = `budget ${hledgerDescription(b.name)}`;
    const monthly = known.filter((l) => l.per === 'month');
    const once = known.filter((l) => l.per === 'period');
    if (monthly.length > 0) {
      rules.push('', `~ monthly from ${b.from} to ${ruleEndAfter(b.to)}  ${description}`, ...monthly.map(posting));
    }
    if (once.length > 0) {
      rules.push('', `~ monthly from ${b.from} to ${ruleEndAfter(b.from)}  ${description}, planned once for ${b.from} to ${b.to}`, ...once.map(posting));
    }
  }
  return rules.length > 0 ? `${rules.join('\n')}\n` : '';
}
