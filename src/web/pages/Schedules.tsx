import { useCallback, useEffect, useState } from 'react';
import { api, type Account, type Schedule } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, PageHeading, Scroll, TableHead } from '../components';
import { formatDate } from '../money';
import { Notice } from './RecordForm';
import { ScheduleForm, whatItMoves } from './ScheduleForm';
import { howOften } from '../../book/change-words';

// D21: every schedule of the book, who made it, when it comes next, how often and what it
// moves; a new one made here, one changed (PUT) or deleted (asked first; what it posted stays).

/** "Every month from Jan 31, 2027 until Dec 31, 2027". */
function scheduleInWords(s: Schedule): string {
  const until = s.until_on ? ` until ${formatDate(s.until_on)}` : '';
  return `${howOften(s.every, s.interval)} from ${formatDate(s.start_on)}${until}`;
}

function ScheduleList({ list, accounts, onEdit, onDelete }: { list: Schedule[]; accounts: Account[]; onEdit(s: Schedule): void; onDelete(s: Schedule): void }) {
  const { words } = useApp();
  if (list.length === 0) return <p>No schedules yet.</p>;
  return (
    <Scroll>
      <table aria-labelledby="schedules-heading" className="schedules-list">
        <TableHead columns={['Next', 'Description', 'How often', 'Made by']} actions />
        <tbody>
          {list.map((s) => (
            <tr key={s.id}>
              <td className="nowrap">{s.next_on ? formatDate(s.next_on) : 'None left'}</td>
              <td>
                <strong>{s.description}</strong>
                <br />
                {whatItMoves(s.entries, accounts, words)}
              </td>
              <td>
                {scheduleInWords(s)}; {s.mode === 'post' ? 'posts itself' : 'reminds you'}
              </td>
              <td className="byline" data-label="Made by">
                {s.created_by_email ?? '—'}
              </td>
              <td>
                <div className="row">
                  <button type="button" className="secondary" onClick={() => onEdit(s)} aria-label={`Edit the schedule ${s.description}`}>
                    Edit
                  </button>
                  <button type="button" className="secondary" onClick={() => onDelete(s)} aria-label={`Delete the schedule ${s.description}`}>
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function Schedules() {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [list, setList] = useState<Schedule[] | null>(null);
  const [editing, setEditing] = useState<Schedule | null>(null);
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [a, s] = await Promise.all([api<Account[]>('GET', '/accounts'), api<Schedule[]>('GET', '/schedules')]);
      setAccounts(a);
      setList(s);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const saved = (message: string) => {
    setEditing(null);
    setAdding(false);
    setSaid(message);
    void load();
  };

  const remove = async (s: Schedule) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(`Delete the schedule “${s.description}”? What it posted stays in the books.`)) return;
    try {
      await api('DELETE', `/schedules/${s.id}`);
      if (editing?.id === s.id) setEditing(null);
      setSaid(`Deleted the schedule “${s.description}”.`);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>Schedules</PageHeading>
      <p className="muted">
        Things that come back: rent, dues, a subscription. A schedule posts each date by itself, or reminds you on <Link to="/">Home</Link> to post or skip it.
      </p>
      {!accounts || !list ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <Notice said={said} focus />
          <ErrorNote error={error} />
          <section aria-labelledby="new-schedule-heading">
            <h2 id="new-schedule-heading">New schedule</h2>
            {adding ? (
              <ScheduleForm accounts={accounts} origin={null} label="New schedule" onSaved={(_, message) => saved(message)} onCancel={() => setAdding(false)} />
            ) : (
              <button
                type="button"
                onClick={() => {
                  setSaid(null);
                  setEditing(null);
                  setAdding(true);
                }}
              >
                Make a schedule
              </button>
            )}
            <p className="muted small">You can also make one from a transaction: open it for editing and choose “Repeat…”.</p>
          </section>
          <section aria-labelledby="schedules-heading">
            <h2 id="schedules-heading">Every schedule</h2>
            {editing && (
              <section aria-labelledby="edit-schedule-heading">
                <h3 id="edit-schedule-heading">Edit “{editing.description}”</h3>
                <ScheduleForm key={editing.id} accounts={accounts} origin={{ schedule: editing }} label={`Edit the schedule ${editing.description}`} onSaved={(_, message) => saved(message)} onCancel={() => setEditing(null)} />
              </section>
            )}
            <ScheduleList
              list={list}
              accounts={accounts}
              onEdit={(s) => {
                setSaid(null);
                setAdding(false);
                setEditing(s);
              }}
              onDelete={(s) => void remove(s)}
            />
          </section>
        </>
      )}
    </main>
  );
}
