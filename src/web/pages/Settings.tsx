import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, type BookStyle, type Connection, type Passkey, type ReceiptsUsage } from '../api';
import { useApp } from '../app';
import { ErrorNote, Loading, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { bookCurrencies, formatCents, formatDate } from '../money';
import { enrolPasskey } from '../passkeys';
import { sizeInWords } from './Receipts';

/**
 * Issue 25 item 11: one way of writing a moment on the page, in the person's time zone: the date
 * as every page writes it ("Nov 26, 2026"), and the time to the minute where there is one.
 */
const dayOf = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
const when = (iso: string | null) => (iso ? `${dayOf(iso)} at ${new Date(iso).toLocaleTimeString(undefined, { timeStyle: 'short' })}` : 'never');

/** Issue 25 item 11: a connection as the revoke question names it, so that two of one app are told apart. */
const connectionInWords = (c: Connection) =>
  `${c.client_name}${c.label ? ` “${c.label}”` : ''} (last used ${when(c.last_used_at)}, expires ${when(c.expires_at)})`;

/** Asks first, then acts and reloads; a refusal is shown by the section it belongs to. */
function useConfirmed(reload: () => Promise<void>) {
  const [error, setError] = useState<string | null>(null);
  const run = async (method: string, path: string, question: string) => {
    if (!window.confirm(question)) return;
    setError(null);
    try {
      await api(method, path);
      await reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { error, run };
}

function BookStyleSection() {
  const { bookStyle, setBookStyle } = useApp();
  const [error, setError] = useState<string | null>(null);
  const changeStyle = async (next: BookStyle) => {
    const previous = bookStyle;
    // Shown at once; put back if the API refuses.
    setBookStyle(next);
    setError(null);
    try {
      await api('PUT', '/settings', { book_style: next });
    } catch (e) {
      setBookStyle(previous);
      setError((e as Error).message);
    }
  };
  const styles = [
    ['personal', 'Personal (a household)'],
    ['club', 'Club (an association)'],
  ] as const;
  return (
    <section aria-labelledby="style-heading">
      <h2 id="style-heading">Book style</h2>
      <fieldset>
        <legend>Words used throughout the app (figures never change)</legend>
        {styles.map(([value, label]) => (
          <label key={value} className="mode">
            <input type="radio" name="book_style" checked={bookStyle === value} onChange={() => void changeStyle(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <ErrorNote error={error} />
    </section>
  );
}

/** D20: the book's currency (ISO 4217, two decimals): every figure of the app shows in it. */
function CurrencySection() {
  const { currency, saveSettings } = useApp();
  const offered = useMemo(() => {
    const all = bookCurrencies();
    return all.some((c) => c.code === currency) ? all : [{ code: currency, name: currency }, ...all];
  }, [currency]);
  const [error, setError] = useState<string | null>(null);
  const choose = async (code: string) => {
    setError(null);
    try {
      await saveSettings({ currency: code });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section aria-labelledby="currency-heading">
      <h2 id="currency-heading">Currency</h2>
      <label className="currency">
        Currency of the book
        <select value={currency} onChange={(e) => void choose(e.target.value)}>
          {offered.map((c) => (
            <option key={c.code} value={c.code}>
              {c.code} — {c.name}
            </option>
          ))}
        </select>
      </label>
      <p className="muted">Money shows in it everywhere, like {formatCents(123456)}; the figures themselves never change.</p>
      <ErrorNote error={error} />
    </section>
  );
}

/**
 * D20: the books closed through a date (nothing dated on or before it can be recorded, changed,
 * deleted or restored, by anyone or anything), and reopened; both asked first, both in History.
 */
function ClosedBooksSection() {
  const { closedThrough, saveSettings } = useApp();
  const [date, setDate] = useState(closedThrough ?? '');
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => setDate(closedThrough ?? ''), [closedThrough]);
  const close = useSubmit(async () => {
    setSaved(null);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error('Enter the last day to close.');
    if (!window.confirm(`Close the books through ${formatDate(date)}? Nothing dated on or before it can be recorded, changed or deleted until they are reopened.`)) return;
    await saveSettings({ closed_through: date });
    setSaved(`The books are closed through ${formatDate(date)}.`);
  });
  const reopen = useSubmit(async () => {
    setSaved(null);
    if (!closedThrough || !window.confirm(`Reopen the books closed through ${formatDate(closedThrough)}? Everything can be changed again.`)) return;
    await saveSettings({ closed_through: null });
    setSaved('The books are open again.');
  });
  return (
    <section aria-labelledby="closed-heading">
      <h2 id="closed-heading">Closed books</h2>
      <p>
        {closedThrough
          ? `The books are closed through ${formatDate(closedThrough)}: nothing dated on or before it can be recorded, changed or deleted.`
          : 'The books are open: any date can be recorded, changed or deleted.'}
      </p>
      <form className="row" aria-label="Close the books" onSubmit={close.onSubmit}>
        <label>
          Books closed through
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <button type="submit" disabled={close.busy || date === (closedThrough ?? '')}>
          Close the books
        </button>
        {closedThrough && (
          <button type="button" className="secondary" disabled={reopen.busy} onClick={() => void reopen.onSubmit()}>
            Reopen
          </button>
        )}
      </form>
      <ErrorNote error={close.error ?? reopen.error} />
      {saved && <p role="status">{saved}</p>}
    </section>
  );
}

function PasskeysSection({ passkeys, reload }: { passkeys: Passkey[]; reload(): Promise<void> }) {
  const remove = useConfirmed(reload);
  const add = useSubmit(async () => {
    await enrolPasskey(`Passkey ${passkeys.length + 1}`);
    await reload();
  });
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <ul className="plain">
        {passkeys.map((p) => (
          <li key={p.id} className="row">
            <span>
              {p.name} — added {dayOf(p.created_at)}, last used {when(p.last_used_at)}
            </span>
            <button
              type="button"
              className="secondary"
              aria-label={`Remove ${p.name}`}
              onClick={() => void remove.run('DELETE', `/auth/passkeys/${p.id}`, `Remove ${p.name}?`)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={remove.error ?? add.error} />
      <button type="button" onClick={() => void add.onSubmit()} disabled={add.busy}>
        Add a passkey
      </button>
    </section>
  );
}

/**
 * D25: an OAuth connection ends by its family, which stays the same while the app rotates its
 * token (the row's id may be retired by the time the person clicks); a minted token by its id.
 */
const revokePath = (c: Connection) => (c.grant_id ? `/auth/grants/${c.grant_id}` : `/auth/tokens/${c.id}`);

function ConnectionsSection({ connections, reload }: { connections: Connection[]; reload(): Promise<void> }) {
  const revoke = useConfirmed(reload);
  return (
    <section aria-labelledby="connections-heading">
      <h2 id="connections-heading">Connections</h2>
      <p className="muted">Apps and scripts that can read and change the books.</p>
      <ErrorNote error={revoke.error} />
      {connections.length === 0 ? (
        <p>None.</p>
      ) : (
        <Scroll>
          <table aria-labelledby="connections-heading">
            <TableHead columns={['App', 'Last used', 'Expires']} actions />
            <tbody>
              {connections.map((c) => (
                <tr key={c.grant_id ?? c.id}>
                  <td>
                    {c.client_name}
                    {c.label ? ` (${c.label})` : ''}
                  </td>
                  <td data-label="Last used">{when(c.last_used_at)}</td>
                  <td data-label="Expires">{when(c.expires_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Revoke ${c.client_name}${c.label ? ` ${c.label}` : ''}`}
                      onClick={() => void revoke.run('DELETE', revokePath(c), `Revoke access for ${connectionInWords(c)}?`)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </section>
  );
}

function PasswordSection({ reload }: { reload(): Promise<void> }) {
  const [passwords, setPasswords] = useState({ current: '', next: '' });
  const [saved, setSaved] = useState<string | null>(null);
  const change = useSubmit(async () => {
    setSaved(null);
    await api('POST', '/auth/password', { current_password: passwords.current, new_password: passwords.next });
    setPasswords({ current: '', next: '' });
    setSaved('Password changed. Other sessions were signed out and every connection was revoked.');
    await reload();
  });
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={change.onSubmit}>
        <label>
          Current password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={passwords.current}
            onChange={(e) => setPasswords({ ...passwords, current: e.target.value })}
          />
        </label>
        <label>
          New password (at least 12 characters)
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            value={passwords.next}
            onChange={(e) => setPasswords({ ...passwords, next: e.target.value })}
          />
        </label>
        <ErrorNote error={change.error} />
        {saved && <p role="status">{saved}</p>}
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </form>
    </section>
  );
}

/** D22: how much of the book's room for receipts is used ("Receipts: 12.3 MB of 1 GB used (57 files)"). */
function ReceiptsStorageSection() {
  const [usage, setUsage] = useState<ReceiptsUsage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<ReceiptsUsage>('GET', '/attachments/usage').then(setUsage, (e: Error) => setError(e.message));
  }, []);
  const full = usage !== null && usage.used_bytes >= usage.limit_bytes * 0.9;
  return (
    <section aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      {usage ? (
        <p className={full ? 'warning' : undefined}>
          Receipts: {sizeInWords(usage.used_bytes)} of {sizeInWords(usage.limit_bytes)} used ({usage.count} {usage.count === 1 ? 'file' : 'files'}).
          {usage.deleted_count > 0 &&
            ` Of these, ${sizeInWords(usage.deleted_bytes)} (${usage.deleted_count} ${usage.deleted_count === 1 ? 'file' : 'files'}) belong to deleted transactions, kept so that Undo in History brings them back; they can be removed there.`}
          {full && ' Nearly full: remove receipts that are no longer needed, or ask whoever runs Ledger to raise RECEIPTS_MAX_MB.'}
        </p>
      ) : (
        !error && <Loading />
      )}
      <ErrorNote error={error} />
    </section>
  );
}

export function Settings() {
  const [lists, setLists] = useState<{ passkeys: Passkey[]; connections: Connection[] } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [passkeys, connections] = await Promise.all([api<Passkey[]>('GET', '/auth/passkeys'), api<Connection[]>('GET', '/auth/tokens')]);
    setLists({ passkeys, connections });
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);

  return (
    <main>
      <PageHeading>Settings</PageHeading>
      <BookStyleSection />
      <CurrencySection />
      <ClosedBooksSection />
      <ReceiptsStorageSection />
      {!lists ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <PasskeysSection passkeys={lists.passkeys} reload={load} />
          <ConnectionsSection connections={lists.connections} reload={load} />
        </>
      )}
      <PasswordSection reload={load} />
    </main>
  );
}
