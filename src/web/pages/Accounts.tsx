import { useCallback, useEffect, useState } from 'react';
import { api, ApiError, apiPage, withQuery, type Account, type BookStyle, type Kind } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { BalanceTable, ErrorNote, Link, Loading, PageHeading, useSubmit } from '../components';
import { formatCents, formatDate, today } from '../money';
import { COUNTS_AS, OPENING_BALANCE, openingQuestion, startingBalancesNames } from '../words';
import { AmountField, amountOrThrow } from './AmountField';
import { reconcilePath, registerPath } from './Reconcile';
import { confirmFarDate, useBookYears, Notice } from './RecordForm';
import { naturalBalance, twoEntries } from '../../book/rules';

const KINDS: Kind[] = ['asset', 'liability', 'equity', 'income', 'expense'];
type Balance = Account & { balance_cents: number };
/** The kinds that hold money (a bank, cash, a card or loan): the ones with an opening balance. */
type Holding = 'asset' | 'liability';
const holdsMoney = (kind: Kind): kind is Holding => kind === 'asset' || kind === 'liability';

function Balances({ balances }: { balances: Balance[] }) {
  const { words } = useApp();
  return KINDS.map((k) => {
    const of = balances.filter((a) => a.kind === k);
    return (
      <section key={k} aria-label={words.accountHeadings[k]}>
        <h2>{words.accountHeadings[k]}</h2>
        {of.length === 0 ? <p className="muted">None yet.</p> : <BalanceTable lines={of} />}
      </section>
    );
  });
}

/** An account's name and kind, labelled for the form they are in ("Name", or "Name of Bank"). */
function AccountFields({ of, name, kind, onName, onKind }: { of?: string; name: string; kind: Kind; onName(name: string): void; onKind(kind: Kind): void }) {
  const { words } = useApp();
  const suffix = of === undefined ? '' : ` of ${of}`;
  return (
    <>
      <label>
        Name{suffix}
        <input required maxLength={100} value={name} onChange={(e) => onName(e.target.value)} />
      </label>
      <label>
        Kind{suffix}
        <select value={kind} onChange={(e) => onKind(e.target.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {words.kinds[k]}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** What an opening balance form holds: the amount as typed (empty: none) and its date. */
interface Opening {
  amount: string;
  date: string;
}
const noOpening = (): Opening => ({ amount: '', date: today() });

/**
 * Issue 25 item 1: an account's opening balance, asked in its own words ("How much is in it
 * today?" for a bank or cash, "How much do you owe on it today?" for a card or loan, D12), with
 * its date (today unless chosen); typed as D19 says, a minus sign allowed (overdrawn, in credit).
 */
function OpeningFields({ kind, of, opening, onChange, keeps }: { kind: Holding; of?: string; opening: Opening; onChange(opening: Opening): void; keeps?: number }) {
  const { bookStyle } = useApp();
  const suffix = of === undefined ? '' : ` of ${of}`;
  const question = openingQuestion(bookStyle, kind, of ?? 'it', opening.date === today() ? null : formatDate(opening.date));
  const empty = keeps === undefined ? 'Leave it empty if it starts at nothing.' : `Leave it empty to keep it as it is (${formatCents(keeps)} today).`;
  return (
    <fieldset className="opening">
      <legend>Balance{suffix}</legend>
      <AmountField label={question} signed optional hint={`${OPENING_BALANCE[bookStyle][kind].hint} ${empty}`} value={opening.amount} onChange={(amount) => onChange({ ...opening, amount })} />
      <label>
        Date of the balance{suffix}
        <input type="date" required value={opening.date} onChange={(e) => onChange({ ...opening, date: e.target.value })} />
      </label>
    </fieldset>
  );
}

/**
 * The typed opening balance in natural sign (D6) and its date, or null when none was typed;
 * what stops it from being booked is thrown before anything is sent (D19, D20).
 */
function readOpening(opening: Opening, closedThrough: string | null): { cents: number; date: string } | null {
  if (opening.amount.trim() === '') return null;
  const cents = amountOrThrow(opening.amount, { signed: true });
  const closed = closedBooksRefusal(opening.date, closedThrough, 'recorded');
  if (closed) throw new Error(closed);
  confirmFarDate(opening.date);
  return { cents, date: opening.date };
}

/**
 * The starting-balances account (equity) an opening balance is booked against: the book's own,
 * found by name in either book style's words (D12), or created in the book style's words.
 */
async function startingBalancesAccount(accounts: Account[], style: BookStyle): Promise<Account> {
  for (const name of startingBalancesNames(style)) {
    const found = accounts.find((a) => a.kind === 'equity' && a.name.toLocaleLowerCase() === name.toLocaleLowerCase());
    if (found) return found;
  }
  return api<Account>('POST', '/accounts', { name: startingBalancesNames(style)[0], kind: 'equity' });
}

/**
 * Issue 25 item 1 (D6): brings `account`'s balance on `date` to `target` (natural sign) with one
 * two-entry transaction against the starting-balances account, in the sign its kind needs: an
 * asset's balance is its entries, a liability's minus them ("we owe 350" on a card is −350.00 on
 * the card, +350.00 on starting balances). Answers the words of what was booked, or null when the
 * balance already was `target`.
 */
async function bookBalance(account: Account, target: number, date: string, style: BookStyle): Promise<string | null> {
  const { accounts } = await api<{ accounts: Balance[] }>('GET', withQuery('/reports/balances', { as_of: date }));
  const before = accounts.find((a) => a.id === account.id)?.balance_cents ?? 0;
  const difference = target - before;
  if (difference === 0) return null;
  const equity = await startingBalancesAccount(accounts, style);
  const entry = naturalBalance(account.kind, difference);
  const entries =
    entry > 0 ? twoEntries({ to_account_id: account.id, from_account_id: equity.id, amount_cents: entry }) : twoEntries({ to_account_id: equity.id, from_account_id: account.id, amount_cents: -entry });
  const description = before === 0 ? `Opening balance of ${account.name}` : `Balance of ${account.name} set to ${formatCents(target)}`;
  await api('POST', '/transactions', { occurred_on: date, description, entries });
  const stands = account.kind === 'liability' ? `${formatCents(target)} owed on it` : `${formatCents(target)} in it`;
  return `${stands} on ${formatDate(date)}, booked against ${equity.name}`;
}

function NewAccount({ onCreated }: { onCreated(said: string): Promise<void> }) {
  const { bookStyle, closedThrough } = useApp();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('asset');
  const [opening, setOpening] = useState(noOpening);
  const create = useSubmit(async () => {
    const balance = holdsMoney(kind) ? readOpening(opening, closedThrough) : null;
    const account = await api<Account>('POST', '/accounts', { name, kind });
    let booked: string | null = null;
    try {
      if (balance) booked = await bookBalance(account, balance.cents, balance.date, bookStyle);
    } catch (e) {
      await onCreated(`Added ${account.name}.`);
      throw new Error(`${account.name} was added, but its balance was not booked: ${(e as Error).message}`);
    }
    setName('');
    setOpening(noOpening());
    await onCreated(booked ? `Added ${account.name}: ${booked}.` : `Added ${account.name}.`);
  });
  return (
    <section aria-labelledby="new-account">
      <h2 id="new-account">New account</h2>
      <form onSubmit={create.onSubmit}>
        <AccountFields name={name} kind={kind} onName={setName} onKind={setKind} />
        {holdsMoney(kind) && <OpeningFields kind={kind} opening={opening} onChange={setOpening} />}
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.busy}>
          Add account
        </button>
      </form>
    </section>
  );
}

/** Whether any transaction has an entry on the account (D15 `account_id`, one is enough). */
async function hasEntries(account: Account): Promise<boolean> {
  return (await apiPage('/transactions?' + new URLSearchParams({ account_id: String(account.id), limit: '1' }))).items.length > 0;
}

/** Issue 25 item 8: how many transactions have an entry on the account (D15 `account_id`, page after page). */
async function transactionsOn(account: Account): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await apiPage(withQuery('/transactions', { account_id: String(account.id), limit: '1000', cursor }));
    count += page.items.length;
    cursor = page.next ?? undefined;
  } while (cursor);
  return count;
}

/** Issue 25 item 8: why a used account stays, how many transactions use it, and the list of them to move. */
function UsedAccount({ account, count }: { account: Account; count: number }) {
  const many = count === 1 ? '1 transaction' : `${count} transactions`;
  return (
    <p className="error" role="alert">
      {account.name} cannot be deleted: {many} {count === 1 ? 'has an entry' : 'have entries'} on it. Move {count === 1 ? 'it' : 'them'} to another account first, one by one:{' '}
      <Link to={`/transactions?account_id=${account.id}`}>
        the {many} on {account.name}
      </Link>
      .
    </p>
  );
}

/**
 * D15: rename an account or fix its kind (issue 25 item 2: asked first when it has entries, saying
 * what moves where), or set its balance (item 1); delete one nothing uses; see its register and
 * history; reconcile a bank, cash or card account (D20).
 */
function ManageAccount({ account, onChanged }: { account: Balance; onChanged(said?: string): Promise<void> }) {
  const { bookStyle, closedThrough } = useApp();
  const [name, setName] = useState(account.name);
  const [kind, setKind] = useState<Kind>(account.kind);
  const [opening, setOpening] = useState<Opening>(noOpening);
  const save = useSubmit(async () => {
    const balance = holdsMoney(kind) ? readOpening(opening, closedThrough) : null;
    const renamed = name !== account.name || kind !== account.kind;
    if (kind !== account.kind && (await hasEntries(account))) {
      const counts = COUNTS_AS[bookStyle];
      const what = account.balance_cents === 0 ? `${account.name}’s entries` : `${account.name}’s ${formatCents(account.balance_cents)}`;
      if (!window.confirm(`${what} will count as ${counts[kind]}, not as ${counts[account.kind]}, in every report. Change the kind of ${account.name}?`)) {
        setKind(account.kind);
        return;
      }
    }
    if (renamed) await api('PUT', `/accounts/${account.id}`, { name, kind });
    const booked = balance ? await bookBalance({ ...account, name, kind }, balance.cents, balance.date, bookStyle) : null;
    await onChanged(booked ? `Saved ${name}: ${booked}.` : `Saved ${name}.`);
  });
  const [used, setUsed] = useState<number | null>(null);
  const remove = useSubmit(async () => {
    setUsed(null);
    if (!window.confirm(`Delete the account "${account.name}"?`)) return;
    try {
      await api('DELETE', `/accounts/${account.id}`);
    } catch (e) {
      // D15's 409: issue 25 item 8 says how many, and where they can be moved one by one.
      if (!(e instanceof ApiError && e.status === 409)) throw e;
      setUsed(await transactionsOn(account));
      return;
    }
    await onChanged();
  });
  // Closed until asked for: the page's own "Name" and "Kind" fields stay the only ones of their name.
  const [open, setOpen] = useState(false);
  const unchanged = name === account.name && kind === account.kind && opening.amount.trim() === '';
  return (
    <li className="manage">
      {/* The name once, then short buttons named after it for screen readers (issue 6/7 finding 8: whole on a phone). */}
      <div className="row">
        <strong className="name">{account.name}</strong>
        <span className="row actions">
          <button type="button" className="secondary" aria-label={`Change ${account.name}`} aria-expanded={open} onClick={() => setOpen(!open)}>
            Change
          </button>
          <button type="button" className="secondary" aria-label={`Delete ${account.name}`} disabled={remove.busy} onClick={() => void remove.onSubmit()}>
            Delete
          </button>
          <Link to={registerPath(account.id)}>
            Register<span className="visually-hidden"> of {account.name}</span>
          </Link>
          {(account.kind === 'asset' || account.kind === 'liability') && (
            <Link to={reconcilePath(account.id)}>
              Reconcile<span className="visually-hidden"> {account.name}</span>
            </Link>
          )}
          <Link to={`/history?subject=account&subject_id=${account.id}`}>
            History<span className="visually-hidden"> of {account.name}</span>
          </Link>
        </span>
      </div>
      {open && (
        <form aria-label={`Change ${account.name}`} className="row" onSubmit={save.onSubmit}>
          <AccountFields of={account.name} name={name} kind={kind} onName={setName} onKind={setKind} />
          {holdsMoney(kind) && (
            <OpeningFields kind={kind} of={account.name} opening={opening} onChange={setOpening} keeps={kind === account.kind ? account.balance_cents : undefined} />
          )}
          <button type="submit" disabled={save.busy || unchanged}>
            Save {account.name}
          </button>
        </form>
      )}
      <ErrorNote error={save.error ?? remove.error} />
      {used !== null && <UsedAccount account={account} count={used} />}
    </li>
  );
}

function ManageAccounts({ balances, onChanged }: { balances: Balance[]; onChanged(said?: string): Promise<void> }) {
  return (
    <section aria-labelledby="manage-accounts">
      <h2 id="manage-accounts">Change or delete</h2>
      <ul className="plain">
        {balances.map((a) => (
          <ManageAccount key={`${a.id}:${a.name}:${a.kind}:${a.balance_cents}`} account={a} onChanged={onChanged} />
        ))}
      </ul>
    </section>
  );
}

export function Accounts() {
  useBookYears();
  const [balances, setBalances] = useState<Balance[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);

  const load = useCallback(async () => {
    // as_of = today where the person is, as the transaction forms date things (not the API's UTC today).
    setBalances((await api<{ accounts: Balance[] }>('GET', withQuery('/reports/balances', { as_of: today() }))).accounts);
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);
  const changed = async (words?: string) => {
    setSaid(words ?? null);
    await load();
  };

  return (
    <main>
      <PageHeading>Accounts</PageHeading>
      {balances ? <Balances balances={balances} /> : error ? <ErrorNote error={error} /> : <Loading />}
      <NewAccount onCreated={changed} />
      <Notice said={said} />
      {balances && <ManageAccounts balances={balances} onChanged={changed} />}
    </main>
  );
}
