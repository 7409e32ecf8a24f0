import type { Db } from '../db/database';
import type { AccountKind } from '../db/schema';
import { todayUtc } from '../text';
import { accountNames, decimal, journalCommodity, oneLine, readBook, type ExportAccount, type JournalQuery } from './exports';

// D17: GET /export/ledger.beancount, a file Beancount reads (checked with `bean-check` and
// `bean-query` in tests/exports.test.ts).

const TOP_LEVEL: Record<AccountKind, string> = {
  asset: 'Assets',
  liability: 'Liabilities',
  equity: 'Equity',
  income: 'Income',
  expense: 'Expenses',
};

/**
 * The letters and digits a component keeps: those of the Latin, modern Greek and basic Cyrillic
 * blocks. Beancount checks a component against its own table of Unicode letters, which is older
 * than JavaScript's (bean-check 2.3.5 refuses U+037F, U+0524 and letters of most other scripts,
 * and takes only some capitals as a first letter); within these blocks the two agree.
 */
function kept(char: string): boolean {
  const code = char.codePointAt(0)!;
  const inBlocks = code < 0x370 || (code >= 0x386 && code <= 0x3ce) || (code >= 0x400 && code <= 0x45f);
  return inBlocks && /[\p{L}\p{Nd}]/u.test(char);
}

/** A character kept as is, or as its letters without accents (`ệ` → `e`), or '' (a separator). */
function keptForm(char: string): string {
  if (kept(char)) return char;
  const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
  return bare !== '' && [...bare].every(kept) ? bare : '';
}

/**
 * An account name as one Beancount component: an upper-case letter or a digit, then letters,
 * digits and hyphens. The kept characters (see `kept`) of each run form a word; words are joined
 * by `-`; the first letter is upper-cased (`cash box` → `Cash-box`, `Café & Bäckerei` →
 * `Café-Bäckerei`, `Bank: Savings` → `Bank-Savings`). When the first letter has no upper case of
 * its own (`ĸ`), `Account-` goes before it; when nothing is kept (`日本`), the component is ''.
 */
export function beancountComponent(name: string): string {
  const words: string[] = [];
  let word = '';
  for (const char of name.normalize('NFC')) {
    const form = keptForm(char);
    if (form !== '') word += form;
    else if (word !== '') {
      words.push(word);
      word = '';
    }
  }
  if (word !== '') words.push(word);
  const component = words.join('-');
  if (component === '') return '';
  const [first = '', ...rest] = component;
  const upper = first.toUpperCase();
  const startsWell = /^[\p{Lu}\p{Nd}]/u.test(upper) && [...upper].every(kept);
  return startsWell ? upper + rest.join('') : `Account-${component}`;
}

/** A Beancount string: `\` and `"` escaped; line breaks become spaces. */
function quoted(text: string): string {
  return `"${oneLine(text).replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * D17: the Beancount file. Every account is opened once, before its first use: on `from` when
 * given, else on the export's first date (else on `to`, else today, UTC); then one transaction per
 * transaction, its id as metadata.
 */
export async function* beancountFile(db: Db, query: JournalQuery): AsyncGenerator<string> {
  const commodity = await journalCommodity(db, query);
  let names = new Map<number, string>();
  let opening: ExportAccount[] | undefined;
  // The accounts are opened once the first date is known: the first part of transactions, or the end.
  const openAccounts = (firstDate: string | undefined) => {
    const opened = query.from ?? firstDate ?? query.to ?? todayUtc();
    const lines = [`option "operating_currency" "${commodity}"`, '', ...opening!.map((a) => `${opened} open ${names.get(a.id)!}`)];
    opening = undefined;
    return `${lines.join('\n')}\n`;
  };
  for await (const part of readBook(db, query)) {
    if ('accounts' in part) {
      names = accountNames(part.accounts, TOP_LEVEL, beancountComponent);
      opening = part.accounts;
      continue;
    }
    const lines: string[] = [];
    for (const t of part.transactions) {
      lines.push('', `${t.occurredOn} * ${quoted(t.description)}`, `  transaction_id: ${t.id}`);
      for (const e of t.entries) lines.push(`  ${names.get(e.account.id)!}  ${decimal(e.amountCents)} ${commodity}`);
    }
    yield (opening ? openAccounts(part.transactions[0]?.occurredOn) : '') + `${lines.join('\n')}\n`;
  }
  if (opening) yield openAccounts(undefined);
}
