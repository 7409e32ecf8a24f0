import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type BookSettings, type DirectDebit, type DirectDebitDraft, type Person, type PreNotification } from '../api';
import { Downloads, ErrorNote, Link, Loading, Money, PageHeading, Scroll, TableHead, useSubmit } from '../components';
import { formatCents, formatDate, today } from '../money';
import { addDays } from '../../book/occurrences';
import { CreditorDetails, CreditorForm } from './CreditorForm';
import { Notice } from './RecordForm';

// D27 (issue 41 items 1, 2, 3, 5): collect what members owe by SEPA direct debit — the club's
// creditor details once, a collection date and its draft (who, how much, who is skipped and why),
// the collection with the file for the bank (pain.008.001.08, or .02 for a bank that asks for it)
// and the pre-notification of each person, printable or as a CSV for a mail merge; the
// collections made, each of which can be deleted (the people owe again).

type Reason = DirectDebitDraft['skipped'][number]['reason'];

/** Monday to Friday: the days a bank counts. */
const isBusinessDay = (isoDate: string) => {
  const day = new Date(`${isoDate}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
};

/**
 * The rule chosen for the collection date (issue 41 item 2): business days are Monday to Friday
 * (TARGET2's holidays are not counted: a bank that closes on one simply needs a day more, which the
 * warning's margin covers). The default date is 5 business days after today, which gives most
 * banks' submission deadlines (1–2 business days for SEPA Core RCUR) room to spare; the page warns
 * when fewer than 2 business days lie between today and the date. The 14 days' pre-notification
 * SEPA Core asks for unless agreed otherwise are the club's to keep with its members: the warning
 * reminds of it, it is not enforced (many clubs agree a shorter notice in the mandate).
 */
export function businessDaysAfter(from: string, count: number): string {
  let day = from;
  for (let found = 0; found < count; ) {
    day = addDays(day, 1) ?? day;
    if (isBusinessDay(day)) found += 1;
  }
  return day;
}

/** How many business days lie after `from` up to and including `to` (0 when `to` is not after it). */
export function businessDaysBetween(from: string, to: string): number {
  let count = 0;
  for (let day = addDays(from, 1); day && day <= to && count < 10; day = addDays(day, 1)) if (isBusinessDay(day)) count += 1;
  return count;
}

const DEFAULT_BUSINESS_DAYS = 5;
const WARN_BELOW_BUSINESS_DAYS = 2;

export function DirectDebits() {
  const { t } = useTranslation();
  const [settings, setSettings] = useState<BookSettings | null>(null);
  const [editing, setEditing] = useState(false);
  const [collections, setCollections] = useState<DirectDebit[] | null>(null);
  const [names, setNames] = useState<Map<number, string>>(new Map());
  const [shown, setShown] = useState<DirectDebit | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  /** Counts the collections deleted: the draft is asked again after each (the people owe again). */
  const [deletions, setDeletions] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [book, list, people] = await Promise.all([
        api<BookSettings>('GET', '/settings'),
        api<DirectDebit[]>('GET', '/direct-debits'),
        api<Person[]>('GET', '/people'),
      ]);
      setSettings(book);
      setCollections(list);
      setNames(new Map(people.map((p) => [p.id, p.name])));
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const remove = async (collection: DirectDebit) => {
    if (!window.confirm(t('directDebits.list.confirmDelete', { date: formatDate(collection.collect_on), count: collection.count }))) return;
    setError(null);
    try {
      await api('DELETE', `/direct-debits/${collection.id}`);
      if (shown?.id === collection.id) setShown(null);
      setSaid(t('directDebits.list.deleted', { date: formatDate(collection.collect_on), count: collection.count }));
      setDeletions((n) => n + 1);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (!settings || !collections) {
    return (
      <main id="main" className="direct-debits">
        <PageHeading>{t('directDebits.title')}</PageHeading>
        {error ? <ErrorNote error={error} /> : <Loading />}
      </main>
    );
  }
  const sepa = settings.sepa;
  return (
    <main id="main" className="direct-debits">
      <PageHeading>{t('directDebits.title')}</PageHeading>
      <p className="muted">
        {t('directDebits.intro')} <Link to="/people">{t('directDebits.peopleLink')}</Link>
      </p>
      <Notice said={said} focus />
      <ErrorNote error={error} />

      <section aria-labelledby="creditor-heading" className="stack">
        <h2 id="creditor-heading">{t('directDebits.creditor.heading')}</h2>
        {sepa && !editing ? (
          <CreditorDetails sepa={sepa} onChange={() => setEditing(true)} />
        ) : (
          <>
            {!sepa && <p className="muted">{t('directDebits.creditor.none')}</p>}
            <CreditorForm
              sepa={sepa}
              onCancel={sepa ? () => setEditing(false) : undefined}
              onSaved={(book) => {
                setSettings(book);
                setEditing(false);
                setSaid(t('directDebits.creditor.saved'));
              }}
            />
          </>
        )}
      </section>

      {sepa && (
        <CollectSection
          names={names}
          deletions={deletions}
          onCollected={(collection) => {
            setShown(collection);
            setSaid(null);
            void load();
          }}
        />
      )}

      {shown && <CollectionResult collection={shown} names={names} />}

      <section aria-labelledby="collections-heading" className="stack">
        <h2 id="collections-heading">{t('directDebits.list.heading')}</h2>
        {collections.length === 0 ? (
          <p className="muted">{t('directDebits.list.none')}</p>
        ) : (
          <Scroll>
            <table className="collections" aria-label={t('directDebits.list.caption')}>
              <TableHead
                columns={[t('directDebits.list.date'), t('directDebits.list.count'), t('directDebits.list.total'), t('directDebits.list.messageId')]}
                numeric={[t('directDebits.list.count'), t('directDebits.list.total')]}
                actions
              />
              <tbody>
                {collections.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">{formatDate(c.collect_on)}</th>
                    <td className="num">{c.count}</td>
                    <td className="num">
                      <Money cents={c.total_cents} />
                    </td>
                    <td className="message-id">{c.message_id}</td>
                    <td className="actions">
                      <button type="button" className="secondary" onClick={() => setShown(c)} aria-label={t('directDebits.list.showLabel', { date: formatDate(c.collect_on) })}>
                        {t('directDebits.list.show')}
                      </button>
                      <button type="button" className="secondary danger" onClick={() => void remove(c)} aria-label={t('directDebits.list.deleteLabel', { date: formatDate(c.collect_on) })}>
                        {t('directDebits.list.delete')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        )}
      </section>
    </main>
  );
}

/** Item 2: the collection date, its draft (who, how much, who is skipped and why), then Collect. */
function CollectSection({ names, deletions, onCollected }: { names: Map<number, string>; deletions: number; onCollected(collection: DirectDebit): void }) {
  const { t } = useTranslation();
  const start = today();
  const [collectOn, setCollectOn] = useState(() => businessDaysAfter(start, DEFAULT_BUSINESS_DAYS));
  const [draft, setDraft] = useState<DirectDebitDraft | null>(null);
  const [draftError, setDraftError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setDraft(null);
    setDraftError(null);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(collectOn)) return;
    if (collectOn < start) {
      setDraftError(t('directDebits.collect.past'));
      return;
    }
    api<DirectDebitDraft>('GET', `/direct-debits/draft?collect_on=${collectOn}`).then(
      (d) => current && setDraft(d),
      (e: Error) => current && setDraftError(e.message),
    );
    return () => {
      current = false;
    };
  }, [collectOn, start, deletions, t]);
  const { busy, error, onSubmit } = useSubmit(async () => {
    const made = await api<DirectDebit>('POST', '/direct-debits', { collect_on: collectOn });
    onCollected(made);
    setDraft(await api<DirectDebitDraft>('GET', `/direct-debits/draft?collect_on=${collectOn}`));
  });
  const soon = /^\d{4}-\d{2}-\d{2}$/.test(collectOn) && collectOn >= start && businessDaysBetween(start, collectOn) < WARN_BELOW_BUSINESS_DAYS;
  return (
    <section aria-labelledby="collect-heading" className="stack">
      <h2 id="collect-heading">{t('directDebits.collect.heading')}</h2>
      <form className="stack" aria-label={t('directDebits.collect.formLabel')} onSubmit={(e) => void onSubmit(e)}>
        <label>
          {t('directDebits.collect.date')}
          <input type="date" required min={start} value={collectOn} onChange={(e) => setCollectOn(e.target.value)} />
        </label>
        {soon && (
          <p className="warning" role="note">
            {t('directDebits.collect.soon')}
          </p>
        )}
        <ErrorNote error={draftError} />
        {draft ? <DraftView draft={draft} names={names} /> : !draftError && <Loading />}
        <ErrorNote error={error} />
        <div className="row">
          <button type="submit" disabled={busy || !draft || draft.count === 0}>
            {t('directDebits.collect.button')}
          </button>
        </div>
      </form>
    </section>
  );
}

function SkippedList({ skipped, names }: { skipped: { person_id: number; reason: Reason }[]; names: Map<number, string> }) {
  const { t } = useTranslation();
  if (skipped.length === 0) return null;
  return (
    <div className="skipped">
      <h3>{t('directDebits.skipped.heading', { count: skipped.length })}</h3>
      <ul>
        {skipped.map((s) => (
          <li key={s.person_id}>{t('directDebits.skipped.line', { name: names.get(s.person_id) ?? `#${s.person_id}`, reason: t(`directDebits.skipped.reasons.${s.reason}`) })}</li>
        ))}
      </ul>
    </div>
  );
}

function DraftView({ draft, names }: { draft: DirectDebitDraft; names: Map<number, string> }) {
  const { t } = useTranslation();
  return (
    <div className="stack draft" aria-live="polite">
      {draft.count === 0 ? (
        <p className="muted">{t('directDebits.collect.nobody')}</p>
      ) : (
        <Scroll>
          <table className="draft-table" aria-label={t('directDebits.collect.caption', { date: formatDate(draft.collect_on) })}>
            <TableHead columns={[t('directDebits.collect.name'), t('directDebits.collect.amount')]} numeric={[t('directDebits.collect.amount')]} />
            <tbody>
              {draft.people.map((p) => (
                <tr key={p.person_id}>
                  <th scope="row">{p.name}</th>
                  <td className="num">
                    <Money cents={p.amount_cents} />
                  </td>
                </tr>
              ))}
              <tr className="total">
                <th scope="row">{t('directDebits.collect.total', { count: draft.count })}</th>
                <td className="num">
                  <Money cents={draft.total_cents} />
                </td>
              </tr>
            </tbody>
          </table>
        </Scroll>
      )}
      <SkippedList skipped={draft.skipped} names={names} />
    </div>
  );
}

/** Items 2, 4 and 5: a collection made, its file for the bank and its pre-notifications. */
function CollectionResult({ collection, names }: { collection: DirectDebit; names: Map<number, string> }) {
  const { t } = useTranslation();
  const [notices, setNotices] = useState<PreNotification[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setNotices(null);
    api<PreNotification[]>('GET', `/direct-debits/${collection.id}/pre-notifications`).then(setNotices, (e: Error) => setError(e.message));
  }, [collection.id]);
  const date = formatDate(collection.collect_on);
  return (
    <>
      <section aria-labelledby="result-heading" className="stack collection-result">
        <h2 id="result-heading">{t('directDebits.result.heading', { date })}</h2>
        <p role="status">{t('directDebits.result.summary', { count: collection.count, total: formatCents(collection.total_cents), date })}</p>
        <Downloads
          label={t('directDebits.result.filesLabel')}
          hint={t('directDebits.result.hint', { messageId: collection.message_id })}
          files={[
            { label: t('directDebits.result.download'), path: `/direct-debits/${collection.id}/pain.008.xml`, fallbackName: `${collection.message_id}.xml` },
            { label: t('directDebits.result.older'), path: `/direct-debits/${collection.id}/pain.008.xml?version=001.02`, fallbackName: `${collection.message_id}.xml` },
          ]}
        />
        <SkippedList skipped={collection.skipped} names={names} />
      </section>
      <section aria-labelledby="notices-heading" className="stack pre-notifications">
        <h2 id="notices-heading" className="screen-only">
          {t('directDebits.notices.heading')}
        </h2>
        <p className="muted screen-only">{t('directDebits.notices.intro')}</p>
        <div className="row screen-only">
          <button type="button" onClick={() => window.print()}>
            {t('directDebits.notices.print')}
          </button>
        </div>
        <div className="screen-only">
          <Downloads
            label={t('directDebits.notices.csvLabel')}
            hint={t('directDebits.notices.csvHint')}
            files={[{ label: t('directDebits.notices.csv'), path: `/direct-debits/${collection.id}/pre-notifications.csv`, fallbackName: `pre-notifications-${collection.id}.csv` }]}
          />
        </div>
        <ErrorNote error={error} />
        {notices ? (
          notices.map((n) => <PreNotice key={n.person_id} notice={n} />)
        ) : (
          !error && <Loading />
        )}
      </section>
    </>
  );
}

/** One person's pre-notification: a letter of its own (one printed page each). */
function PreNotice({ notice }: { notice: PreNotification }) {
  const { t } = useTranslation();
  return (
    <article className="pre-notice" aria-label={t('directDebits.notices.letterLabel', { name: notice.name })}>
      {notice.creditor_name && <p className="pre-notice-from">{notice.creditor_name}</p>}
      <h3>{t('directDebits.notices.title')}</h3>
      <p>{t('directDebits.notices.greeting', { name: notice.name })}</p>
      <p>{t('directDebits.notices.body', { amount: formatCents(notice.amount_cents), date: formatDate(notice.collect_on) })}</p>
      <dl>
        {notice.mandate_id && (
          <>
            <dt>{t('directDebits.notices.mandate')}</dt>
            <dd>{notice.mandate_id}</dd>
          </>
        )}
        {notice.creditor_id && (
          <>
            <dt>{t('directDebits.notices.creditorId')}</dt>
            <dd>{notice.creditor_id}</dd>
          </>
        )}
        <dt>{t('directDebits.notices.remittance')}</dt>
        <dd>{notice.remittance}</dd>
      </dl>
      <p>{t('directDebits.notices.closing')}</p>
    </article>
  );
}
