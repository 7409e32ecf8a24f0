import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type BookStyle, type Connection, type Passkey, type ReceiptsUsage } from '../api';
import { useApp } from '../app';
import { ErrorNote, LanguageChoice, Loading, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { locale, t } from '../i18n';
import { bookCurrencies, formatCents, formatDate } from '../money';
import { enrolPasskey } from '../passkeys';
import { sizeInWords } from './Receipts';

/**
 * Issue 25 item 11: one way of writing a moment on the page, in the person's time zone: the date
 * as every page writes it ("Nov 26, 2026"), and the time to the minute where there is one.
 */
const dayOf = (iso: string) => new Date(iso).toLocaleDateString(locale(), { dateStyle: 'medium' });
const when = (iso: string | null) =>
  iso ? t('settings.when', { day: dayOf(iso), time: new Date(iso).toLocaleTimeString(locale(), { timeStyle: 'short' }) }) : t('settings.never');

/** Issue 25 item 11: a connection as the revoke question names it, so that two of one app are told apart. */
const connectionInWords = (c: Connection) => {
  const words = { name: c.client_name, label: c.label ?? '', lastUsed: when(c.last_used_at), expires: when(c.expires_at) };
  return c.label ? t('settings.connections.labelledInWords', words) : t('settings.connections.inWords', words);
};

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
  const { t } = useTranslation();
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
    ['personal', t('settings.style.personal')],
    ['club', t('settings.style.club')],
  ] as const;
  return (
    <section aria-labelledby="style-heading">
      <h2 id="style-heading">{t('settings.style.heading')}</h2>
      <fieldset>
        <legend>{t('settings.style.legend')}</legend>
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
  const { t, i18n } = useTranslation();
  const { currency, saveSettings } = useApp();
  // The currencies' names are the browser's, in the language chosen (D29).
  const offered = useMemo(() => {
    const all = bookCurrencies();
    return all.some((c) => c.code === currency) ? all : [{ code: currency, name: currency }, ...all];
  }, [currency, i18n.language]);
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
      <h2 id="currency-heading">{t('settings.currency.heading')}</h2>
      <label className="currency">
        {t('settings.currency.label')}
        <select value={currency} onChange={(e) => void choose(e.target.value)}>
          {offered.map((c) => (
            <option key={c.code} value={c.code}>
              {c.code} — {c.name}
            </option>
          ))}
        </select>
      </label>
      <p className="muted">{t('settings.currency.hint', { example: formatCents(123456) })}</p>
      <ErrorNote error={error} />
    </section>
  );
}

/**
 * D20: the books closed through a date (nothing dated on or before it can be recorded, changed,
 * deleted or restored, by anyone or anything), and reopened; both asked first, both in History.
 */
function ClosedBooksSection() {
  const { t } = useTranslation();
  const { closedThrough, saveSettings } = useApp();
  const [date, setDate] = useState(closedThrough ?? '');
  // What was just done, worded when shown (it follows the language, D29).
  const [saved, setSaved] = useState<{ closed: string } | { reopened: true } | null>(null);
  useEffect(() => setDate(closedThrough ?? ''), [closedThrough]);
  const close = useSubmit(async () => {
    setSaved(null);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(t('settings.closed.enterDate'));
    if (!window.confirm(t('settings.closed.confirmClose', { date: formatDate(date) }))) return;
    await saveSettings({ closed_through: date });
    setSaved({ closed: date });
  });
  const reopen = useSubmit(async () => {
    setSaved(null);
    if (!closedThrough || !window.confirm(t('settings.closed.confirmReopen', { date: formatDate(closedThrough) }))) return;
    await saveSettings({ closed_through: null });
    setSaved({ reopened: true });
  });
  return (
    <section aria-labelledby="closed-heading">
      <h2 id="closed-heading">{t('settings.closed.heading')}</h2>
      <p>{closedThrough ? t('settings.closed.closedThrough', { date: formatDate(closedThrough) }) : t('settings.closed.open')}</p>
      <form className="row" aria-label={t('settings.closed.formLabel')} onSubmit={close.onSubmit}>
        <label>
          {t('settings.closed.dateLabel')}
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <button type="submit" disabled={close.busy || date === (closedThrough ?? '')}>
          {t('settings.closed.close')}
        </button>
        {closedThrough && (
          <button type="button" className="secondary" disabled={reopen.busy} onClick={() => void reopen.onSubmit()}>
            {t('settings.closed.reopen')}
          </button>
        )}
      </form>
      <ErrorNote error={close.error ?? reopen.error} />
      {saved && <p role="status">{'closed' in saved ? t('settings.closed.saved', { date: formatDate(saved.closed) }) : t('settings.closed.reopened')}</p>}
    </section>
  );
}

function PasskeysSection({ passkeys, reload }: { passkeys: Passkey[]; reload(): Promise<void> }) {
  const { t } = useTranslation();
  const remove = useConfirmed(reload);
  const add = useSubmit(async () => {
    await enrolPasskey(t('settings.passkeys.defaultName', { number: passkeys.length + 1 }));
    await reload();
  });
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">{t('settings.passkeys.heading')}</h2>
      <ul className="plain">
        {passkeys.map((p) => (
          <li key={p.id} className="row">
            <span>{t('settings.passkeys.line', { name: p.name, added: dayOf(p.created_at), lastUsed: when(p.last_used_at) })}</span>
            <button
              type="button"
              className="secondary"
              aria-label={t('settings.passkeys.removeLabel', { name: p.name })}
              onClick={() => void remove.run('DELETE', `/auth/passkeys/${p.id}`, t('settings.passkeys.confirmRemove', { name: p.name }))}
            >
              {t('settings.passkeys.remove')}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={remove.error ?? add.error} />
      <button type="button" onClick={() => void add.onSubmit()} disabled={add.busy}>
        {t('settings.passkeys.add')}
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
  const { t } = useTranslation();
  const revoke = useConfirmed(reload);
  return (
    <section aria-labelledby="connections-heading">
      <h2 id="connections-heading">{t('settings.connections.heading')}</h2>
      <p className="muted">{t('settings.connections.hint')}</p>
      <ErrorNote error={revoke.error} />
      {connections.length === 0 ? (
        <p>{t('settings.connections.none')}</p>
      ) : (
        <Scroll>
          <table aria-labelledby="connections-heading">
            <TableHead columns={[t('settings.connections.app'), t('settings.connections.lastUsed'), t('settings.connections.expires')]} actions />
            <tbody>
              {connections.map((c) => (
                <tr key={c.grant_id ?? c.id}>
                  <td>
                    {c.client_name}
                    {c.label ? ` (${c.label})` : ''}
                  </td>
                  <td data-label={t('settings.connections.lastUsed')}>{when(c.last_used_at)}</td>
                  <td data-label={t('settings.connections.expires')}>{when(c.expires_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('settings.connections.revokeLabel', { name: c.label ? `${c.client_name} ${c.label}` : c.client_name })}
                      onClick={() => void revoke.run('DELETE', revokePath(c), t('settings.connections.confirmRevoke', { connection: connectionInWords(c) }))}
                    >
                      {t('settings.connections.revoke')}
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
  const { t } = useTranslation();
  const [passwords, setPasswords] = useState({ current: '', next: '' });
  const [saved, setSaved] = useState(false);
  const change = useSubmit(async () => {
    setSaved(false);
    await api('POST', '/auth/password', { current_password: passwords.current, new_password: passwords.next });
    setPasswords({ current: '', next: '' });
    setSaved(true);
    await reload();
  });
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{t('settings.password.heading')}</h2>
      <form onSubmit={change.onSubmit}>
        <label>
          {t('settings.password.current')}
          <input
            type="password"
            autoComplete="current-password"
            required
            value={passwords.current}
            onChange={(e) => setPasswords({ ...passwords, current: e.target.value })}
          />
        </label>
        <label>
          {t('settings.password.new')}
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
        {saved && <p role="status">{t('settings.password.changed')}</p>}
        <button type="submit" disabled={change.busy}>
          {t('settings.password.change')}
        </button>
      </form>
    </section>
  );
}

/** D22: how much of the book's room for receipts is used ("Receipts: 12.3 MB of 1 GB used (57 files)"). */
function ReceiptsStorageSection() {
  const { t } = useTranslation();
  const [usage, setUsage] = useState<ReceiptsUsage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<ReceiptsUsage>('GET', '/attachments/usage').then(setUsage, (e: Error) => setError(e.message));
  }, []);
  const full = usage !== null && usage.used_bytes >= usage.limit_bytes * 0.9;
  return (
    <section aria-labelledby="storage-heading">
      <h2 id="storage-heading">{t('settings.storage.heading')}</h2>
      {usage ? (
        <p className={full ? 'warning' : undefined}>
          {t('settings.storage.used', { used: sizeInWords(usage.used_bytes), limit: sizeInWords(usage.limit_bytes), count: usage.count })}
          {usage.deleted_count > 0 && ` ${t('settings.storage.deleted', { size: sizeInWords(usage.deleted_bytes), count: usage.deleted_count })}`}
          {full && ` ${t('settings.storage.nearlyFull')}`}
        </p>
      ) : (
        !error && <Loading />
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/** D29: the language of the app in this browser (kept in it, not in the book: each person reads their own). */
function LanguageSection() {
  const { t } = useTranslation();
  return (
    // Not a named region: its one control is named "Language" already.
    <section>
      <h2>{t('settings.language.heading')}</h2>
      <LanguageChoice />
      <p className="muted">{t('settings.language.hint')}</p>
    </section>
  );
}

export function Settings() {
  const { t } = useTranslation();
  const [lists, setLists] = useState<{ passkeys: Passkey[]; connections: Connection[] } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [passkeys, connections] = await Promise.all([api<Passkey[]>('GET', '/auth/passkeys'), api<Connection[]>('GET', '/auth/tokens')]);
    setLists({ passkeys, connections });
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);

  return (
    <main>
      <PageHeading>{t('settings.title')}</PageHeading>
      <LanguageSection />
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
