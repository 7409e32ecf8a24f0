import { naturalBalance, type AccountKind, type BookStyle } from '../book/rules';
import { VOCABULARY, type Words } from '../book/vocabulary';
import { fillIn, owedWords, startingBalanceInWords as inWords, startingBalanceOf, type OwedSentences, type StartingBalanceSentences } from '../book/debt-words';
import { t } from './i18n';

// D12 in the web app's language (D29): the words that follow book_style come from the catalogue's
// `vocabulary` section, by book style (`vocabulary.club.moneyIn`). Its English is the same as
// src/book/vocabulary.ts, which the MCP tools' descriptions keep using in English
// (tests/web-german-home.test.ts holds the two together). Every table is read when it is used,
// never at module load, so that it follows the language chosen since.

export type { Words };
type Holding = 'asset' | 'liability';

/** Everything the catalogue says for one book style: D12's Words and the tables below. */
interface StyleWords extends Words {
  statementBalance: Record<Holding, { label: string; hint: string }>;
  openingBalance: Record<Holding, { today: string; on: string; hint: string }>;
  balanceMoves: Record<AccountKind, { more: string; less: string }>;
  countsAs: Record<AccountKind, string>;
  debt: StartingBalanceSentences;
}

/** `vocabulary.<style>` in the chosen language; its {{placeholders}} are left for the caller to fill. */
function styleWords(style: BookStyle, values: Record<string, string> = {}): StyleWords {
  return t(`vocabulary.${style}`, { returnObjects: true, ...values }) as unknown as StyleWords;
}

/** D12: the words that follow book_style, in the chosen language (`useApp().words`). */
export function wordsOf(style: BookStyle): Words {
  return styleWords(style);
}

/** D6: natural balance (src/book/rules.ts). */
export const natural = naturalBalance;

/**
 * D12 for D20's Reconcile page: the statement's closing balance in words a person understands for
 * the kind of account (a card's statement says what is owed, in natural sign: D6), by book style.
 */
export const STATEMENT_BALANCE: Record<BookStyle, Record<Holding, { label: string; hint: string }>> = {
  get personal() {
    return styleWords('personal').statementBalance;
  },
  get club() {
    return styleWords('club').statementBalance;
  },
};

/**
 * Issue 25 item 1 (D6, D12): the opening balance an account gets when it is created or edited,
 * asked in its own words by kind ("it" on the new-account form, the account's name on its own
 * form; "today" unless another date is chosen): the question for an account of `kind` called
 * `it`, today or on a date shown as `date`.
 */
export function openingQuestion(style: BookStyle, kind: Holding, it: string, date: string | null): string {
  const words = styleWords(style).openingBalance[kind];
  return fillIn(date === null ? words.today : words.on, { it, date: date ?? '' });
}

/** What the opening balance's sign means for an account of `kind`. */
export function openingHint(style: BookStyle, kind: Holding): string {
  return styleWords(style).openingBalance[kind].hint;
}

/**
 * The names a starting-balances (equity) account goes by (D12), the book's own in the chosen
 * language first, then the other book style's and the English ones (a book begun in English).
 */
export function startingBalancesNames(style: BookStyle): string[] {
  const other: BookStyle = style === 'club' ? 'personal' : 'club';
  const names = [wordsOf(style).kinds.equity, wordsOf(other).kinds.equity, VOCABULARY[style].kinds.equity, VOCABULARY[other].kinds.equity];
  return [...new Set(names)];
}

/**
 * Issue 25 item 1 (D6, D12): what a money in / money out / move form does to each account's
 * balance, in natural sign, by kind: "more" when the balance grows, "less" when it shrinks; with
 * `{amount}` in it to replace.
 */
export const BALANCE_MOVES: Record<BookStyle, Record<AccountKind, { more: string; less: string }>> = {
  get personal() {
    return styleWords('personal', { amount: '{amount}' }).balanceMoves;
  },
  get club() {
    return styleWords('club', { amount: '{amount}' }).balanceMoves;
  },
};

/** BALANCE_MOVES' words for `amount` (already formatted). */
export function balanceMove(style: BookStyle, kind: AccountKind, way: 'more' | 'less', amount: string): string {
  return fillIn(styleWords(style).balanceMoves[kind][way], { amount });
}

/**
 * Issue 25 item 1, issue 37 item 7: what a form does to a card or loan, in words that cannot be
 * misread, following the debt: a card's own words ("paid the card off") only for an account named
 * as a card, words that fit any debt otherwise ("paid back part of Darlehen"); src/book/debt-words.ts.
 */
export function OWED_WORDS(accountName: string): ReturnType<typeof owedWords> {
  // {{name}} is left in by t (no value given) for owedWords to fill.
  const sentences: OwedSentences = {
    card: { spent: t('vocabulary.owed.card.spent'), refund: t('vocabulary.owed.card.refund'), paidOff: t('vocabulary.owed.card.paidOff'), borrowed: t('vocabulary.owed.card.borrowed') },
    debt: { spent: t('vocabulary.owed.debt.spent'), refund: t('vocabulary.owed.debt.refund'), paidOff: t('vocabulary.owed.debt.paidOff'), borrowed: t('vocabulary.owed.debt.borrowed') },
  };
  return owedWords(accountName, sentences);
}

/**
 * Issue 37 item 7: an opening balance told as such, wherever a transaction is told in words
 * (src/book/debt-words.ts), in the chosen language.
 */
export function startingBalanceInWords(
  style: BookStyle,
  balance: NonNullable<ReturnType<typeof startingBalanceOf>>,
  description: string,
  money: (cents: number) => string,
): { lead: string; rest: string } {
  return inWords(style, balance, description, money, styleWords(style).debt);
}
export { startingBalanceOf };

/**
 * Issue 25 item 2 (D12): what an account's balance counts as in the reports, by kind, for the
 * question asked before its kind changes ("Bank’s 2,548.15 will count as spending, not as money
 * we have").
 */
export const COUNTS_AS: Record<BookStyle, Record<AccountKind, string>> = {
  get personal() {
    return styleWords('personal').countsAs;
  },
  get club() {
    return styleWords('club').countsAs;
  },
};
