import { naturalBalance, type BookStyle } from '../book/rules';
import { VOCABULARY, type Words } from '../book/vocabulary';

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
