import type { AccountKind, BookStyle } from './rules';

// D12: the wording that follows book_style (figures never change), written once for the web app
// and the MCP tools' descriptions. Pure data: the web app bundles it.

export interface Words {
  kinds: Record<AccountKind, string>;
  moneyIn: string;
  moneyOut: string;
  move: string;
  balanceSheet: string;
  incomeStatement: string;
  /** Examples are wording too: where money in comes from, what money out pays for. */
  source: string;
  purpose: string;
}

/** D12: the one table of words that follow book_style, for the web app and the MCP tools' descriptions. */
export const VOCABULARY: Record<BookStyle, Words> = {
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
    source: 'a salary',
    purpose: 'groceries',
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
    source: 'membership dues',
    purpose: 'venue hire',
  },
};
