import { naturalBalance, type AccountKind, type BookStyle } from '../book/rules';
import { VOCABULARY, type Words } from '../book/vocabulary';
import { owedWords, startingBalanceInWords, startingBalanceOf } from '../book/debt-words';

/** D12: the words that follow book_style (src/book/vocabulary.ts, shared with the MCP tools). */
export const WORDS = VOCABULARY;
export type { Words };

/** D6: natural balance (src/book/rules.ts). */
export const natural = naturalBalance;

/**
 * D12 for D20's Reconcile page: the statement's closing balance in words a person understands for
 * the kind of account (a card's statement says what is owed, in natural sign: D6), by book style.
 */
export const STATEMENT_BALANCE: Record<BookStyle, Record<'asset' | 'liability', { label: string; hint: string }>> = {
  personal: {
    asset: { label: 'What the statement says you have', hint: 'The closing balance on the statement; a minus sign if it is overdrawn.' },
    liability: { label: 'What the statement says you owe', hint: 'The balance to pay on the statement; a minus sign if you are in credit.' },
  },
  club: {
    asset: { label: 'What the statement says the club has', hint: 'The closing balance on the statement; a minus sign if it is overdrawn.' },
    liability: { label: 'What the statement says the club owes', hint: 'The balance to pay on the statement; a minus sign if the club is in credit.' },
  },
};

/**
 * Issue 25 item 1 (D6, D12): the opening balance an account gets when it is created or edited,
 * asked in its own words by kind ("it" on the new-account form, the account's name on its own
 * form; "today" unless another date is chosen), and the equity account it is booked against,
 * found by name or created in the book style's words.
 */
export const OPENING_BALANCE: Record<BookStyle, Record<'asset' | 'liability', { today: string; on: string; hint: string }>> = {
  personal: {
    asset: { today: 'How much is in {it} today?', on: 'How much was in {it} on {date}?', hint: 'A minus sign if it is overdrawn.' },
    liability: { today: 'How much do you owe on {it} today?', on: 'How much did you owe on {it} on {date}?', hint: 'What is owed, without a sign; a minus sign if you are in credit.' },
  },
  club: {
    asset: { today: 'How much is in {it} today?', on: 'How much was in {it} on {date}?', hint: 'A minus sign if it is overdrawn.' },
    liability: { today: 'How much does the club owe on {it} today?', on: 'How much did the club owe on {it} on {date}?', hint: 'What is owed, without a sign; a minus sign if the club is in credit.' },
  },
};

/** The question of OPENING_BALANCE for an account of `kind` called `it`, today or on a date shown as `date`. */
export function openingQuestion(style: BookStyle, kind: 'asset' | 'liability', it: string, date: string | null): string {
  const words = OPENING_BALANCE[style][kind];
  return (date === null ? words.today : words.on).replace('{it}', it).replace('{date}', date ?? '');
}

/** The names a starting-balances (equity) account goes by in either book style (D12), the book's own first. */
export function startingBalancesNames(style: BookStyle): string[] {
  const own = VOCABULARY[style].kinds.equity;
  return [own, ...Object.values(VOCABULARY).map((w) => w.kinds.equity).filter((name) => name !== own)];
}

/**
 * Issue 25 item 1 (D6, D12): what a money in / money out / move form does to each account's
 * balance, in natural sign, by kind: "more" when the balance grows, "less" when it shrinks.
 */
export const BALANCE_MOVES: Record<BookStyle, Record<AccountKind, { more: string; less: string }>> = {
  personal: {
    asset: { more: '{amount} more in it', less: '{amount} less in it' },
    liability: { more: 'we owe {amount} more', less: 'we owe {amount} less' },
    equity: { more: '{amount} more', less: '{amount} less' },
    income: { more: '{amount} more income', less: '{amount} less income' },
    expense: { more: '{amount} more spent', less: '{amount} less spent' },
  },
  club: {
    asset: { more: '{amount} more in it', less: '{amount} less in it' },
    liability: { more: 'the club owes {amount} more', less: 'the club owes {amount} less' },
    equity: { more: '{amount} more', less: '{amount} less' },
    income: { more: '{amount} more received', less: '{amount} less received' },
    expense: { more: '{amount} more paid', less: '{amount} less paid' },
  },
};

/**
 * Issue 25 item 1, issue 37 item 7: what a form does to a card or loan, in words that cannot be
 * misread, following the debt: a card's own words ("paid the card off") only for an account named
 * as a card, words that fit any debt otherwise ("paid back part of Darlehen"); src/book/debt-words.ts.
 */
export const OWED_WORDS = owedWords;

/** Issue 37 item 7: an opening balance told as such, wherever a transaction is told in words (src/book/debt-words.ts). */
export { startingBalanceInWords, startingBalanceOf };

/**
 * Issue 25 item 2 (D12): what an account's balance counts as in the reports, by kind, for the
 * question asked before its kind changes ("Bank’s 2,548.15 will count as spending, not as money
 * we have").
 */
export const COUNTS_AS: Record<BookStyle, Record<AccountKind, string>> = {
  personal: { asset: 'money we have', liability: 'what we owe', equity: 'starting balances', income: 'income', expense: 'spending' },
  club: { asset: 'the club’s funds', liability: 'what the club owes', equity: 'reserves', income: 'income', expense: 'payments' },
};
