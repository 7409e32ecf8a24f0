import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, withQuery, type DuesPlan, type PeopleReport, type Person } from '../api';
import { useApp } from '../app';
import { ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead } from '../components';
import { today } from '../money';
import { standingInWords } from '../people-words';
import { MemberListPaste } from './MemberListPaste';
import { PersonForm } from './PersonForm';
import { Notice } from './RecordForm';

// D27 (issue 40 items 1, 3, 5, 6): the book's people — a club's members, a family's people — each
// with where they stand ("owes €15.00, since Mar 1, 2026", D12's words), found by the search box;
// who owes in total; a person added, changed, their personal data forgotten (asked first) or
// deleted; a member list pasted from a spreadsheet; their statements and the dues plans.

/** Where a person stands, from who owes (GET /reports/people): their overdue date, if any. */
type Overdue = Map<number, string | null>;

function PeopleList({ people, overdue, onEdit, onForget, onDelete }: { people: Person[]; overdue: Overdue; onEdit(p: Person): void; onForget(p: Person): void; onDelete(p: Person): void }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  return (
    <Scroll>
      <table aria-label={t('people.list.label', { context: bookStyle })} className="people-list">
        <TableHead columns={[t('people.list.name'), t('people.list.memberNo'), t('people.list.standing')]} actions />
        <tbody>
          {people.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <Link to={`/people/statement?id=${p.id}`}>{p.name}</Link>
              </th>
              <td>{p.member_no ?? ''}</td>
              <td className={p.balance_cents > 0 ? 'owes' : undefined}>{standingInWords(bookStyle, p.balance_cents, overdue.get(p.id) ?? null)}</td>
              <td>
                <div className="row">
                  <button type="button" className="secondary" onClick={() => onEdit(p)} aria-label={t('people.editLabel', { name: p.name })}>
                    {t('people.edit')}
                  </button>
                  <button type="button" className="secondary" onClick={() => onForget(p)} aria-label={t('people.forgetLabel', { name: p.name })}>
                    {t('people.forget')}
                  </button>
                  <button type="button" className="secondary" onClick={() => onDelete(p)} aria-label={t('people.deleteLabel', { name: p.name })}>
                    {t('people.delete')}
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

/** Who owes, in all (D27's totals, both ≥ 0), in the book style's words. */
function WhoOwes({ report }: { report: PeopleReport }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const owing = report.people.filter((p) => p.balance_cents > 0).length;
  return (
    <section aria-labelledby="who-owes-heading" className="cards who-owes">
      <div className="card">
        <h2 id="who-owes-heading">{t('people.owes.heading', { context: bookStyle })}</h2>
        <Money cents={report.owed_to_book_cents} />
        <p className="muted small">{t('people.owes.owing', { count: owing, context: bookStyle })}</p>
      </div>
      {report.owed_by_book_cents > 0 && (
        <div className="card">
          <h2>{t('people.owes.owedHeading', { context: bookStyle })}</h2>
          <Money cents={report.owed_by_book_cents} />
        </div>
      )}
    </section>
  );
}

export function People() {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [q, setQ] = useState('');
  const [people, setPeople] = useState<Person[] | null>(null);
  const [report, setReport] = useState<PeopleReport | null>(null);
  const [plans, setPlans] = useState<DuesPlan[]>([]);
  const [editing, setEditing] = useState<Person | null>(null);
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async (query: string) => {
    try {
      const [found, owes, dues] = await Promise.all([
        api<Person[]>('GET', withQuery('/people', { q: query.trim() })),
        api<PeopleReport>('GET', withQuery('/reports/people', { as_of: today() })),
        api<DuesPlan[]>('GET', '/dues-plans'),
      ]);
      setPeople(found);
      setReport(owes);
      setPlans(dues);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  // The list answers the search box as the person types (the last answer wins).
  useEffect(() => {
    const timer = setTimeout(() => void load(q), q ? 200 : 0);
    return () => clearTimeout(timer);
  }, [q, load]);

  const saved = (message: string) => {
    setEditing(null);
    setAdding(false);
    setError(null);
    setSaid(message);
    void load(q);
  };

  const forget = async (p: Person) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(t('people.confirmForget', { name: p.name }))) return;
    try {
      await api('POST', `/people/${p.id}/forget`);
      saved(t('people.forgotten', { name: p.name }));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const remove = async (p: Person) => {
    setSaid(null);
    setError(null);
    if (!window.confirm(t('people.confirmDelete', { name: p.name }))) return;
    try {
      await api('DELETE', `/people/${p.id}`);
      saved(t('people.deleted', { name: p.name }));
    } catch (e) {
      // D27 (D15): a person whose account has entries stays; their personal data can be forgotten.
      setError(e instanceof ApiError && e.status === 409 ? t('people.hasEntries', { name: p.name }) : (e as Error).message);
    }
  };

  const overdue: Overdue = new Map(report?.people.map((p) => [p.id, p.overdue_since]));
  return (
    <main>
      <PageHeading>{t('people.title', { context: bookStyle })}</PageHeading>
      <p className="muted">
        {t('people.intro', { context: bookStyle })} <Link to="/dues">{t('people.duesLink')}</Link> · <Link to="/direct-debits">{t('directDebits.title')}</Link>
      </p>
      {!people || !report ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <WhoOwes report={report} />
          <Notice said={said} focus />
          <ErrorNote error={error} />
          <section aria-labelledby="people-heading">
            <h2 id="people-heading">{t('people.listHeading', { context: bookStyle })}</h2>
            <div role="search" className="row">
              <label>
                {t('people.search')}
                <input type="search" value={q} onChange={(e) => setQ(e.target.value)} />
              </label>
            </div>
            {editing && (
              <section aria-labelledby="edit-person-heading">
                <h3 id="edit-person-heading">{t('people.editHeading', { name: editing.name })}</h3>
                <PersonForm key={editing.id} person={editing} plans={plans} onSaved={(p) => saved(t('people.saved', { name: p.name }))} onCancel={() => setEditing(null)} />
              </section>
            )}
            {people.length === 0 ? (
              <p>{q.trim() ? t('people.noneFound', { q: q.trim() }) : t('people.none', { context: bookStyle })}</p>
            ) : (
              <PeopleList
                people={people}
                overdue={overdue}
                onEdit={(p) => {
                  setSaid(null);
                  setAdding(false);
                  setEditing(p);
                }}
                onForget={(p) => void forget(p)}
                onDelete={(p) => void remove(p)}
              />
            )}
          </section>
          <section aria-labelledby="new-person-heading">
            <h2 id="new-person-heading">{t('people.newHeading', { context: bookStyle })}</h2>
            {adding ? (
              <PersonForm person={null} plans={plans} onSaved={(p) => saved(t('people.added', { name: p.name }))} onCancel={() => setAdding(false)} />
            ) : (
              <button
                type="button"
                onClick={() => {
                  setSaid(null);
                  setEditing(null);
                  setAdding(true);
                }}
              >
                {t('people.add', { context: bookStyle })}
              </button>
            )}
          </section>
          <section aria-labelledby="paste-heading">
            <h2 id="paste-heading">{t('people.paste.heading', { context: bookStyle })}</h2>
            <MemberListPaste onAdded={(count) => saved(t('people.paste.added', { count, context: bookStyle }))} />
          </section>
        </>
      )}
    </main>
  );
}
