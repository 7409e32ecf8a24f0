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

/** Who owes, by book style (D12): "we owe", "the club owes". */
const OWES: Record<BookStyle, string> = { personal: 'we owe', club: 'the club owes' };

/**
 * "Opening balance: we owe $1,204.33 on Visa card" ("$2,548.15 in Bank"; "Bank overdrawn by
 * $20.00"; "$5.00 in credit on Visa card"). A later correction from the Accounts page (its
 * description begins "Balance of") is the difference it made: "Balance set: we owe $95.67 more on
 * Visa card". `lead` and `rest` apart, for a page that sets the lead in bold.
 */
export function startingBalanceInWords(
  style: BookStyle,
  balance: NonNullable<ReturnType<typeof startingBalanceOf>>,
  description: string,
  money: (cents: number) => string,
): { lead: string; rest: string } {
  const { account_name: name, kind, natural_cents: cents } = balance;
  const amount = money(Math.abs(cents));
  if (/^balance of /i.test(description.trim())) {
    const change = cents >= 0 ? 'more' : 'less';
    return { lead: 'Balance set', rest: kind === 'liability' ? `${OWES[style]} ${amount} ${change} on ${name}` : `${amount} ${change} in ${name}` };
  }
  const rest =
    kind === 'liability'
      ? cents >= 0
        ? `${OWES[style]} ${amount} on ${name}`
        : `${amount} in credit on ${name}`
      : cents >= 0
        ? `${amount} in ${name}`
        : `${name} overdrawn by ${amount}`;
  return { lead: 'Opening balance', rest };
}

/**
 * Issue 37 item 7: an account records its kind only (liability), not whether it is a card or a
 * loan, so a card is told by its name (card, Karte, Visa, Mastercard, Amex); any other debt (a
 * loan, a Darlehen, what the club owes a member) gets words that fit every debt.
 */
export function isCard(accountName: string): boolean {
  return /card|karte|visa|mastercard|amex/i.test(accountName);
}

/** What a form does to a debt, in words that cannot be misread: a card's own, or a debt's. */
export function owedWords(accountName: string): { spent: string; refund: string; paidOff: string; borrowed: string } {
  return isCard(accountName)
    ? { spent: 'spent on the card', refund: 'money back onto the card', paidOff: 'paid the card off', borrowed: 'borrowed on the card' }
    : { spent: 'paid with borrowed money', refund: 'money in against the debt', paidOff: `paid back part of ${accountName}`, borrowed: `borrowed on ${accountName}` };
}
