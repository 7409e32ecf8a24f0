import { holdsMoney, naturalBalance, type AccountKind, type BookStyle } from './rules';

// Issue 37 item 7 (D6, D12): an opening balance and a debt in words, wherever a transaction is
// told (Home's recent list, the Transactions list, History and its CSV). Pure, so that the web app
// bundles it and the change log's export words it alike.

interface Line {
  account_id: number;
  account_name: string;
  amount_cents: number;
}

/**
 * A two-entry transaction between a starting-balances (equity) account and one that holds money
 * (an asset, a card or loan): what the Accounts page books as an account's opening balance, or
 * as a later "Balance of … set to …". The account that holds money and its entry in natural sign
 * (D6: a card's "we owe 350" is +350); null for any other transaction, or when a kind is unknown.
 */
export function startingBalanceOf(
  entries: readonly Line[],
  kindOf: (accountId: number) => AccountKind | undefined,
): { account_name: string; kind: 'asset' | 'liability'; natural_cents: number } | null {
  if (entries.length !== 2) return null;
  const kinds = entries.map((e) => kindOf(e.account_id));
  const held = kinds.findIndex((k) => k !== undefined && holdsMoney(k));
  if (held < 0 || kinds[1 - held] !== 'equity') return null;
  const kind = kinds[held] as 'asset' | 'liability';
  const line = entries[held]!;
  return { account_name: line.account_name, kind, natural_cents: naturalBalance(kind, line.amount_cents) };
}

/**
 * The sentences of an opening balance or a balance set, with `{{amount}}` and `{{name}}` in them:
 * the web app passes its catalogue's (D29, in the chosen language); the change log's CSV export
 * keeps these English ones (the export is a file, not a page).
 */
export interface StartingBalanceSentences {
  opening: string;
  set: string;
  owe: string;
  credit: string;
  held: string;
  overdrawn: string;
  oweMore: string;
  oweLess: string;
  heldMore: string;
  heldLess: string;
}

/** The English sentences by book style (D12: "we owe", "the club owes"). */
export const STARTING_BALANCE_SENTENCES: Record<BookStyle, StartingBalanceSentences> = {
  personal: {
    opening: 'Opening balance',
    set: 'Balance set',
    owe: 'we owe {{amount}} on {{name}}',
    credit: '{{amount}} in credit on {{name}}',
    held: '{{amount}} in {{name}}',
    overdrawn: '{{name}} overdrawn by {{amount}}',
    oweMore: 'we owe {{amount}} more on {{name}}',
    oweLess: 'we owe {{amount}} less on {{name}}',
    heldMore: '{{amount}} more in {{name}}',
    heldLess: '{{amount}} less in {{name}}',
  },
  club: {
    opening: 'Opening balance',
    set: 'Balance set',
    owe: 'the club owes {{amount}} on {{name}}',
    credit: '{{amount}} in credit on {{name}}',
    held: '{{amount}} in {{name}}',
    overdrawn: '{{name}} overdrawn by {{amount}}',
    oweMore: 'the club owes {{amount}} more on {{name}}',
    oweLess: 'the club owes {{amount}} less on {{name}}',
    heldMore: '{{amount}} more in {{name}}',
    heldLess: '{{amount}} less in {{name}}',
  },
};

/** `template` with each `{{key}}` replaced by its value (in one pass: a name holding "{{amount}}" stays as typed). */
export function fillIn(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/**
 * "Opening balance: we owe $1,204.33 on Visa card" ("$2,548.15 in Bank"; "Bank overdrawn by
 * $20.00"; "$5.00 in credit on Visa card"). A later correction from the Accounts page (its
 * description begins "Balance of") is the difference it made: "Balance set: we owe $95.67 more on
 * Visa card". `lead` and `rest` apart, for a page that sets the lead in bold. In `sentences`'
 * language (English unless given).
 */
export function startingBalanceInWords(
  style: BookStyle,
  balance: NonNullable<ReturnType<typeof startingBalanceOf>>,
  description: string,
  money: (cents: number) => string,
  sentences: StartingBalanceSentences = STARTING_BALANCE_SENTENCES[style],
): { lead: string; rest: string } {
  const { account_name: name, kind, natural_cents: cents } = balance;
  const values = { amount: money(Math.abs(cents)), name };
  // The Accounts page describes a later correction "Balance of … set to …" ("Saldo von … auf … gesetzt" in German).
  if (/^(balance of|saldo von) /i.test(description.trim())) {
    const more = cents >= 0;
    const rest = kind === 'liability' ? (more ? sentences.oweMore : sentences.oweLess) : more ? sentences.heldMore : sentences.heldLess;
    return { lead: sentences.set, rest: fillIn(rest, values) };
  }
  const rest = kind === 'liability' ? (cents >= 0 ? sentences.owe : sentences.credit) : cents >= 0 ? sentences.held : sentences.overdrawn;
  return { lead: sentences.opening, rest: fillIn(rest, values) };
}

/**
 * Issue 37 item 7: an account records its kind only (liability), not whether it is a card or a
 * loan, so a card is told by its name (card, Karte, Visa, Mastercard, Amex); any other debt (a
 * loan, a Darlehen, what the club owes a member) gets words that fit every debt.
 */
export function isCard(accountName: string): boolean {
  return /card|karte|visa|mastercard|amex/i.test(accountName);
}

/** What a form does to a debt: a card's own words and a debt's (`{{name}}`, the account's name). */
export interface OwedSentences {
  card: { spent: string; refund: string; paidOff: string; borrowed: string };
  debt: { spent: string; refund: string; paidOff: string; borrowed: string };
}

export const OWED_SENTENCES: OwedSentences = {
  card: { spent: 'spent on the card', refund: 'money back onto the card', paidOff: 'paid the card off', borrowed: 'borrowed on the card' },
  debt: { spent: 'paid with borrowed money', refund: 'money in against the debt', paidOff: 'paid back part of {{name}}', borrowed: 'borrowed on {{name}}' },
};

/** What a form does to a debt, in words that cannot be misread: a card's own, or a debt's (English unless `sentences` are given). */
export function owedWords(accountName: string, sentences: OwedSentences = OWED_SENTENCES): { spent: string; refund: string; paidOff: string; borrowed: string } {
  const own = isCard(accountName) ? sentences.card : sentences.debt;
  const values = { name: accountName };
  return { spent: fillIn(own.spent, values), refund: fillIn(own.refund, values), paidOff: fillIn(own.paidOff, values), borrowed: fillIn(own.borrowed, values) };
}
