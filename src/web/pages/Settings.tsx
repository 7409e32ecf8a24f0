import { useCallback, useEffect, useState } from 'react';
import { api, type BookStyle, type Connection, type Passkey } from '../api';
import { useApp } from '../app';
import { ErrorNote, Loading, useSubmit } from '../components';
import { formatDate } from '../money';
import { enrolPasskey } from '../passkeys';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function Settings() {
  const { bookStyle, setBookStyle } = useApp();
  const [passkeys, setPasskeys] = useState<Passkey[] | null>(null);
  const [connections, setConnections] = useState<Connection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [passwords, setPasswords] = useState({ current: '', next: '' });
  const [saved, setSaved] = useState<string | null>(null);

  const load = useCallback(async () => {
    setPasskeys(await api<Passkey[]>('GET', '/auth/passkeys'));
    setConnections(await api<Connection[]>('GET', '/auth/tokens'));
  }, []);
  useEffect(() => void load().catch((e: Error) => setError(e.message)), [load]);

  const style = useSubmit(async () => undefined);
  const changeStyle = async (next: BookStyle) => {
    const previous = bookStyle;
    // Shown at once; put back if the API refuses.
    setBookStyle(next);
    try {
      await api('PUT', '/settings', { book_style: next });
    } catch (e) {
      setBookStyle(previous);
      style.setError((e as Error).message);
    }
  };
  const addPasskey = useSubmit(async () => {
    await enrolPasskey(`Passkey ${(passkeys?.length ?? 0) + 1}`);
    await load();
  });
  const password = useSubmit(async () => {
    await api('POST', '/auth/password', { current_password: passwords.current, new_password: passwords.next });
    setPasswords({ current: '', next: '' });
    setSaved('Password changed. Other sessions were signed out and every token was revoked.');
    await load();
  });
  const act = async (method: string, path: string, question: string) => {
    if (!window.confirm(question)) return;
    try {
      await api(method, path);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (!passkeys || !connections) return error ? <ErrorNote error={error} /> : <Loading />;
  return (
    <main>
      <h1>Settings</h1>
      <section aria-labelledby="style-heading">
        <h2 id="style-heading">Book style</h2>
        <fieldset>
          <legend>Words used throughout the app (figures never change)</legend>
          {(
            [
              ['personal', 'Personal (a household)'],
              ['club', 'Club (an association)'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="mode">
              <input type="radio" name="book_style" checked={bookStyle === value} onChange={() => void changeStyle(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={style.error} />
      </section>
      <section aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        <ul className="plain">
          {passkeys.map((p) => (
            <li key={p.id} className="row">
              <span>
                {p.name} — added {formatDate(p.created_at.slice(0, 10))}, last used {when(p.last_used_at)}
              </span>
              <button type="button" className="secondary" onClick={() => void act('DELETE', `/auth/passkeys/${p.id}`, `Remove ${p.name}?`)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <ErrorNote error={addPasskey.error} />
        <button type="button" onClick={() => void addPasskey.onSubmit()} disabled={addPasskey.busy}>
          Add a passkey
        </button>
      </section>
      <section aria-labelledby="connections-heading">
        <h2 id="connections-heading">Connections</h2>
        <p className="muted">Apps and scripts that can read and change the books.</p>
        <ErrorNote error={error} />
        {connections.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {connections.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.client_name}
                    {c.label ? ` (${c.label})` : ''}
                  </td>
                  <td>{when(c.last_used_at)}</td>
                  <td>{when(c.expires_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Revoke ${c.client_name}`}
                      onClick={() => void act('DELETE', `/auth/tokens/${c.id}`, `Revoke access for ${c.client_name}?`)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <form onSubmit={password.onSubmit}>
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
          <ErrorNote error={password.error} />
          {saved && <p role="status">{saved}</p>}
          <button type="submit" disabled={password.busy}>
            Change password
          </button>
        </form>
      </section>
    </main>
  );
}
