import type { AccountKind } from '../db/schema';

// The book's rules that the server, the MCP tools and the web app all apply, written once. Pure:
// no database access and no server module at run time (only the schema's types), so that the web
// app can bundle it.

export type { AccountKind, BookStyle } from '../db/schema';

/**
 * D6, natural sign: assets and expenses are the sum of their entries; liabilities, equity and
 * income minus that sum.
 */
export function isCreditNormal(kind: AccountKind): boolean {
  return kind === 'liability' || kind === 'equity' || kind === 'income';
}

/** A sum of entries of an account of `kind`, in natural sign (D6). */
export function naturalBalance(kind: AccountKind, sum: number): number {
  return isCreditNormal(kind) ? -sum : sum;
}

/** What a transaction moved: the sum of its positive entries (the same figure as its negative ones). */
export function amountMoved(entries: readonly { amount_cents: number }[]): number {
  return entries.reduce((sum, e) => sum + Math.max(0, e.amount_cents), 0);
}

export interface TwoEntryMovement {
  /** Where the money goes: this account's entry is +amount. */
  to_account_id: number;
  /** Where it comes from: −amount. */
  from_account_id: number;
  /** Above 0. */
  amount_cents: number;
}

/**
 * Money in, money out and a move are one shape (D6, D8, D13): the money goes to one account
 * (+amount) from another (−amount), to first.
 */
export function twoEntries(movement: TwoEntryMovement): { account_id: number; amount_cents: number }[] {
  return [
    { account_id: movement.to_account_id, amount_cents: movement.amount_cents },
    { account_id: movement.from_account_id, amount_cents: -movement.amount_cents },
  ];
}

/** Where money is kept or owed: the accounts a move goes between (D12's funds and debts). */
export function holdsMoney(kind: AccountKind): boolean {
  return kind === 'asset' || kind === 'liability';
}

export type Direction = 'in' | 'out' | 'move' | 'split';

/**
 * What a transaction was, in the words of the forms that record one (D6, D19): money into an
 * account that holds money from one that does not (income, equity) is money in; the reverse is
 * money out; between two that hold money, a move; anything else (more than two entries, or
 * none holding money) a split.
 */
export function directionOf(entries: readonly { account_id: number; amount_cents: number }[], kindOf: (accountId: number) => AccountKind | undefined): Direction {
  if (entries.length !== 2) return 'split';
  const to = entries.find((e) => e.amount_cents > 0);
  const from = entries.find((e) => e.amount_cents < 0);
  if (!to || !from) return 'split';
  const [toKind, fromKind] = [kindOf(to.account_id), kindOf(from.account_id)];
  if (!toKind || !fromKind) return 'split';
  if (holdsMoney(toKind) && holdsMoney(fromKind)) return 'move';
  if (holdsMoney(toKind)) return 'in';
  if (holdsMoney(fromKind)) return 'out';
  return 'split';
}
