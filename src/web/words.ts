import { naturalBalance } from '../book/rules';
import type { BookStyle, Kind } from './api';

/** D12: every wording that depends on book_style, in one table. Figures never change. */
export const WORDS = {
  personal: {
    kinds: {
      asset: 'Accounts (money we have)',
      liability: 'What we owe',
      equity: 'Starting balances',
      income: 'Income',
      expense: 'Spending categories',
    },
    moneyIn: 'Money in',
    moneyOut: 'Money out',
    move: 'Move money',
    balanceSheet: 'What we have and owe',
    incomeStatement: 'Money in and out',
  },
  club: {
    kinds: {
      asset: 'Funds (bank, cash box)',
      liability: 'What the club owes',
      equity: 'Reserves',
      income: 'Receipts (dues, donations, events)',
      expense: 'Payments (venue, kit, events)',
    },
    moneyIn: 'Record a receipt',
    moneyOut: 'Record a payment',
    move: 'Transfer between funds',
    balanceSheet: 'Statement of funds',
    incomeStatement: 'Income and expenditure',
  },
} satisfies Record<BookStyle, { kinds: Record<Kind, string> } & Record<string, unknown>>;

export type Words = (typeof WORDS)[BookStyle];

/** D6: natural balance (src/book/rules.ts). */
export const natural = naturalBalance;
