import { useCallback, useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, type Account, type Schedule } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, PageHeading, Scroll, TableHead } from '../components';
import { formatDate } from '../money';
import { Notice } from './RecordForm';
import { ScheduleForm, whatItMoves } from './ScheduleForm';
import { howOftenInWords } from '../recurrence';
import { t } from '../i18n';

// D21: every schedule of the book, who made it, when it comes next, how often and what it
// moves; a new one made here, one changed (PUT) or deleted (asked first; what it posted stays).

/** "Every month from Jan 31, 2027 until Dec 31, 2027; posts itself". */
function scheduleInWords(s: Schedule): string {
  const values = { howOften: howOftenInWords(s.every, s.interval), start: formatDate(s.start_on), until: s.until_on ? formatDate(s.until_on) : '' };
  if (s.mode === 'post') return s.until_on ? t('schedules.list.postsUntil', values) : t('schedules.list.posts', values);
  return s.until_on ? t('schedules.list.remindsUntil', values) : t('schedules.list.reminds', values);
}

function ScheduleList({ list, accounts, onEdit, onDelete }: { list: Schedule[]; accounts: Account[]; onEdit(s: Schedule): void; onDelete(s: Schedule): void }) {
  const { words } = useApp();
  const { t } = useTranslation();
  if (list.length === 0) return <p>{t('schedules.list.none')}</p>;
  return (
    <Scroll>
      <table aria-labelledby="schedules-heading" className="schedules-list">
        <TableHead columns={[t('schedules.list.next'), t('schedules.list.description'), t('schedules.list.howOften'), t('schedules.list.madeBy')]} actions />
        <tbody>
          {list.map((s) => (
            <tr key={s.id}>
              <td className="nowrap">{s.next_on ? formatDate(s.next_on) : t('schedules.list.noneLeft')}</td>
              <td>
                <strong>{s.description}</strong>
                <br />
                {whatItMoves(s.entries, accounts, words)}
              </td>
              <td>{scheduleInWords(s)}</td>
              <td className="byline" data-label={t('schedules.list.madeBy')}>
                {s.created_by_email ?? '—'}
              </td>
              <td>
                <div className="row">
                  <button type="button" className="secondary" onClick={() => onEdit(s)} aria-label={t('schedules.editLabel', { description: s.description })}>
                    {t('schedules.edit')}
                  </button>
                  <button type="button" className="secondary" onClick={() => onDelete(s)} aria-label={t('schedules.deleteLabel', { description: s.description })}>
                    {t('schedules.delete')}
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
  const { t } = useTranslation();
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
    if (!window.confirm(t('schedules.confirmDelete', { description: s.description }))) return;
    try {
      await api('DELETE', `/schedules/${s.id}`);
      if (editing?.id === s.id) setEditing(null);
      setSaid(t('schedules.deleted', { description: s.description }));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main>
      <PageHeading>{t('schedules.title')}</PageHeading>
      <p className="muted">
        <Trans i18nKey="schedules.intro" components={{ home: <Link to="/">{null}</Link> }} />
      </p>
      {!accounts || !list ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <Notice said={said} focus />
          <ErrorNote error={error} />
          <section aria-labelledby="new-schedule-heading">
            <h2 id="new-schedule-heading">{t('schedules.newHeading')}</h2>
            {adding ? (
              <ScheduleForm accounts={accounts} origin={null} label={t('schedules.newHeading')} onSaved={(_, message) => saved(message)} onCancel={() => setAdding(false)} />
            ) : (
              <button
                type="button"
                onClick={() => {
                  setSaid(null);
                  setEditing(null);
                  setAdding(true);
                }}
              >
                {t('schedules.make')}
              </button>
            )}
            <p className="muted small">{t('schedules.fromTransaction')}</p>
          </section>
          <section aria-labelledby="schedules-heading">
            <h2 id="schedules-heading">{t('schedules.everyHeading')}</h2>
            {editing && (
              <section aria-labelledby="edit-schedule-heading">
                <h3 id="edit-schedule-heading">{t('schedules.editHeading', { description: editing.description })}</h3>
                <ScheduleForm key={editing.id} accounts={accounts} origin={{ schedule: editing }} label={t('schedules.editLabel', { description: editing.description })} onSaved={(_, message) => saved(message)} onCancel={() => setEditing(null)} />
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
