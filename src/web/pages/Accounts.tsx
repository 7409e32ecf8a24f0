import { useCallback, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, ApiError, apiPage, withQuery, type Account, type BookStyle, type Kind } from '../api';
import { closedBooksRefusal, useApp } from '../app';
import { BalanceTable, ErrorNote, Link, Loading, PageHeading, useSubmit } from '../components';
import { t } from '../i18n';
import { formatCents, formatDate, today } from '../money';
import { COUNTS_AS, openingHint, openingQuestion, startingBalancesNames } from '../words';
import { AmountField, amountOrThrow } from './AmountField';
import { reconcilePath, registerPath } from './Reconcile';
import { confirmFarDate, useBookYears, Notice } from './RecordForm';
import { naturalBalance, twoEntries } from '../../book/rules';
import { peopleAccounts } from '../people-accounts';

const KINDS: Kind[] = ['asset', 'liability', 'equity', 'income', 'expense'];
type Balance = Account & { balance_cents: number };
/** The kinds that hold money (a bank, cash, a card or loan): the ones with an opening balance. */
type Holding = 'asset' | 'liability';
const holdsMoney = (kind: Kind): kind is Holding => kind === 'asset' || kind === 'liability';

function Balances({ balances }: { balances: Balance[] }) {
  const { words } = useApp();
  const { t } = useTranslation();
  return KINDS.map((k) => {
    const of = balances.filter((a) => a.kind === k);
    return (
      <section key={k} aria-label={words.accountHeadings[k]}>
        <h2>{words.accountHeadings[k]}</h2>
        {of.length === 0 ? <p className="muted">{t('accounts.noneYet')}</p> : <BalanceTable lines={of} />}
      </section>
    );
  });
}

/** An account's name and kind, labelled for the form they are in ("Name", or "Name of Bank"). */
function AccountFields({ of, name, kind, onName, onKind }: { of?: string; name: string; kind: Kind; onName(name: string): void; onKind(kind: Kind): void }) {
  const { words } = useApp();
  const { t } = useTranslation();
  return (
    <>
      <label>
        {of === undefined ? t('accounts.name') : t('accounts.nameOf', { name: of })}
        <input required maxLength={100} value={name} onChange={(e) => onName(e.target.value)} />
      </label>
      <label>
        {of === undefined ? t('accounts.kind') : t('accounts.kindOf', { name: of })}
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
  const { t } = useTranslation();
  const it = of === undefined ? t('accounts.it') : t('accounts.named', { name: of });
  const question = openingQuestion(bookStyle, kind, it, opening.date === today() ? null : formatDate(opening.date));
  const empty = keeps === undefined ? t('accounts.emptyNew') : t('accounts.emptyKeep', { amount: formatCents(keeps) });
  return (
    <fieldset className="opening">
      <legend>{of === undefined ? t('accounts.balance') : t('accounts.balanceOf', { name: of })}</legend>
      <AmountField label={question} signed optional hint={`${openingHint(bookStyle, kind)} ${empty}`} value={opening.amount} onChange={(amount) => onChange({ ...opening, amount })} />
      <label>
        {of === undefined ? t('accounts.dateOfBalance') : t('accounts.dateOfBalanceOf', { name: of })}
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
  // In the chosen language: the book keeps what the person read (src/book/debt-words.ts knows both "Balance of" and "Saldo von").
  const description = before === 0 ? t('accounts.openingDescription', { name: account.name }) : t('accounts.setDescription', { name: account.name, amount: formatCents(target) });
  await api('POST', '/transactions', { occurred_on: date, description, entries });
  const values = { amount: formatCents(target), date: formatDate(date), equity: equity.name };
  return account.kind === 'liability' ? t('accounts.bookedOwed', values) : t('accounts.bookedIn', values);
}

function NewAccount({ onCreated }: { onCreated(said: string): Promise<void> }) {
  const { bookStyle, closedThrough } = useApp();
  const { t } = useTranslation();
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
      await onCreated(t('accounts.added', { name: account.name }));
      throw new Error(t('accounts.addedNotBooked', { name: account.name, reason: (e as Error).message }));
    }
    setName('');
    setOpening(noOpening());
    await onCreated(booked ? t('accounts.addedBooked', { name: account.name, booked }) : t('accounts.added', { name: account.name }));
  });
  return (
    <section aria-labelledby="new-account">
      <h2 id="new-account">{t('accounts.newAccount')}</h2>
      <form onSubmit={create.onSubmit}>
        <AccountFields name={name} kind={kind} onName={setName} onKind={setKind} />
        {holdsMoney(kind) && <OpeningFields kind={kind} opening={opening} onChange={setOpening} />}
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.busy}>
          {t('accounts.add')}
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
  return (
    <p className="error" role="alert">
      <Trans i18nKey="accounts.used" count={count} values={{ name: account.name }} components={{ list: <Link to={`/transactions?account_id=${account.id}`}>{null}</Link> }} />
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
  const { t } = useTranslation();
  const [name, setName] = useState(account.name);
  const [kind, setKind] = useState<Kind>(account.kind);
  const [opening, setOpening] = useState<Opening>(noOpening);
  const save = useSubmit(async () => {
    const balance = holdsMoney(kind) ? readOpening(opening, closedThrough) : null;
    const renamed = name !== account.name || kind !== account.kind;
    if (kind !== account.kind && (await hasEntries(account))) {
      const counts = COUNTS_AS[bookStyle];
      const values = { name: account.name, amount: formatCents(account.balance_cents), to: counts[kind], from: counts[account.kind] };
      if (!window.confirm(account.balance_cents === 0 ? t('accounts.kindChangeEntries', values) : t('accounts.kindChangeBalance', values))) {
        setKind(account.kind);
        return;
      }
    }
    if (renamed) await api('PUT', `/accounts/${account.id}`, { name, kind });
    const booked = balance ? await bookBalance({ ...account, name, kind }, balance.cents, balance.date, bookStyle) : null;
    await onChanged(booked ? t('accounts.savedBooked', { name, booked }) : t('accounts.saved', { name }));
  });
  const [used, setUsed] = useState<number | null>(null);
  const remove = useSubmit(async () => {
    setUsed(null);
    if (!window.confirm(t('accounts.confirmDelete', { name: account.name }))) return;
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
          <button type="button" className="secondary" aria-label={t('accounts.changeOf', { name: account.name })} aria-expanded={open} onClick={() => setOpen(!open)}>
            {t('accounts.change')}
          </button>
          <button type="button" className="secondary" aria-label={t('accounts.deleteOf', { name: account.name })} disabled={remove.busy} onClick={() => void remove.onSubmit()}>
            {t('accounts.delete')}
          </button>
          <Link to={registerPath(account.id)}>
            <Trans i18nKey="accounts.registerOf" values={{ name: account.name }} components={{ hidden: <span className="visually-hidden" /> }} />
          </Link>
          {(account.kind === 'asset' || account.kind === 'liability') && (
            <Link to={reconcilePath(account.id)}>
              <Trans i18nKey="accounts.reconcileOf" values={{ name: account.name }} components={{ hidden: <span className="visually-hidden" /> }} />
            </Link>
          )}
          <Link to={`/history?subject=account&subject_id=${account.id}`}>
            <Trans i18nKey="accounts.historyOf" values={{ name: account.name }} components={{ hidden: <span className="visually-hidden" /> }} />
          </Link>
        </span>
      </div>
      {open && (
        <form aria-label={t('accounts.changeOf', { name: account.name })} className="row" onSubmit={save.onSubmit}>
          <AccountFields of={account.name} name={name} kind={kind} onName={setName} onKind={setKind} />
          {holdsMoney(kind) && (
            <OpeningFields kind={kind} of={account.name} opening={opening} onChange={setOpening} keeps={kind === account.kind ? account.balance_cents : undefined} />
          )}
          <button type="submit" disabled={save.busy || unchanged}>
            {t('accounts.save', { name: account.name })}
          </button>
        </form>
      )}
      <ErrorNote error={save.error ?? remove.error} />
      {used !== null && <UsedAccount account={account} count={used} />}
    </li>
  );
}

function ManageAccounts({ balances, onChanged }: { balances: Balance[]; onChanged(said?: string): Promise<void> }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="manage-accounts">
      <h2 id="manage-accounts">{t('accounts.changeOrDelete')}</h2>
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
  const { t } = useTranslation();
  const [balances, setBalances] = useState<Balance[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);

  const load = useCallback(async () => {
    // as_of = today where the person is, as the transaction forms date things (not the API's UTC today).
    const [report, people] = await Promise.all([api<{ accounts: Balance[] }>('GET', withQuery('/reports/balances', { as_of: today() })), peopleAccounts()]);
    // D27: people's accounts are shown, changed and deleted under People (Members), with the person.
    setBalances(report.accounts.filter((a) => !people.has(a.id)));
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);
  const changed = async (words?: string) => {
    setSaid(words ?? null);
    await load();
  };

  return (
    <main>
      <PageHeading>{t('accounts.title')}</PageHeading>
      {balances ? <Balances balances={balances} /> : error ? <ErrorNote error={error} /> : <Loading />}
      <NewAccount onCreated={changed} />
      <Notice said={said} />
      {balances && <ManageAccounts balances={balances} onChanged={changed} />}
    </main>
  );
}
