import type { AccountKind, BookStyle } from './rules';

// D12: the wording that follows book_style (figures never change), written once for the web app
// and the MCP tools' descriptions. Pure data: the web app bundles it.

export interface Words {
  kinds: Record<AccountKind, string>;
  /**
   * The Accounts page's section headings, one per kind: D12's words, except where they read in
   * circles on a page called Accounts ("Accounts (money we have)"; issue 6/7 finding 11).
   */
  accountHeadings: Record<AccountKind, string>;
  moneyIn: string;
  moneyOut: string;
  move: string;
  balanceSheet: string;
  incomeStatement: string;
  /** Examples are wording too: where money in comes from, what money out pays for. */
  source: string;
  purpose: string;
  /**
   * What a transaction was, as a noun where a label names it (lists, Home's cards), not the
   * action of recording it (issue 6/7 finding 6: "Record a receipt this month" read wrongly).
   */
  happened: { in: string; out: string; move: string; split: string };
  thisMonthIn: string;
  thisMonthOut: string;
  /**
   * The balance sheet's check line (D7 `balanced`), term by term: what we have = what we owe +
   * the equity accounts + the result so far (issue 6/7 finding 7).
   */
  balanceCheck: { have: string; owe: string; reserves: string; result: string };
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
    accountHeadings: {
      asset: 'Bank and cash (money we have)',
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
    happened: { in: 'Money in', out: 'Money out', move: 'Moved', split: 'Split' },
    thisMonthIn: 'Money in this month',
    thisMonthOut: 'Money out this month',
    balanceCheck: { have: 'Accounts (money we have)', owe: 'What we owe', reserves: 'Starting balances', result: 'Result so far' },
  },
  club: {
    kinds: {
      asset: 'Funds (bank, cash box)',
      liability: 'What the club owes',
      equity: 'Reserves',
      income: 'Income (dues, donations, events)',
      expense: 'Payments (venue, kit, events)',
    },
    accountHeadings: {
      asset: 'Funds (bank, cash box)',
      liability: 'What the club owes',
      equity: 'Reserves',
      income: 'Income (dues, donations, events)',
      expense: 'Payments (venue, kit, events)',
    },
    moneyIn: 'Record income',
    moneyOut: 'Record a payment',
    move: 'Transfer between funds',
    balanceSheet: 'Statement of funds',
    incomeStatement: 'Income and expenditure',
    source: 'membership dues',
    purpose: 'venue hire',
    happened: { in: 'Income', out: 'Payment', move: 'Transfer', split: 'Split' },
    thisMonthIn: 'Income this month',
    thisMonthOut: 'Payments this month',
    balanceCheck: { have: 'Funds', owe: 'What the club owes', reserves: 'Reserves', result: 'Result so far' },
  },
};
