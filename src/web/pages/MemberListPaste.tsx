import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, type BatchError } from '../api';
import { useApp } from '../app';
import { ErrorNote, Scroll, TableHead, useSubmit } from '../components';
import { locale } from '../i18n';
import { readMemberList, type Column, type MemberRow } from '../member-list';
import { formatDate } from '../money';
import { personRefusalInWords, problemInWords } from '../people-words';

// D27 (issue 40 item 1): a member list pasted from a spreadsheet (tab-separated, or `;`/`,` CSV
// with a header row in English or German), previewed row by row, then sent as one batch: all of
// it or nothing, each bad row named by its row in the pasted text (the header is row 1).

/** en-US writes 3/1/2024 for March 1; every other locale the app speaks puts the day first. */
const monthFirst = () => new Intl.DateTimeFormat(locale()).formatToParts(new Date(Date.UTC(2024, 2, 1))).find((p) => p.type !== 'literal')?.type === 'month';

const PREVIEW_COLUMNS: Column[] = ['name', 'email', 'iban', 'member_no', 'mandate', 'mandate_date', 'joined_on'];

function cellsOf(row: MemberRow): string[] {
  const p = row.person;
  return [p.name, p.email ?? '', p.iban ?? '', p.member_no ?? '', p.mandate?.id ?? '', p.mandate ? formatDate(p.mandate.signed_on) : '', p.joined_on ? formatDate(p.joined_on) : ''];
}

export function MemberListPaste({ onAdded }: { onAdded(count: number): void }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const hintId = useId();
  const [text, setText] = useState('');
  const list = useMemo(() => (text.trim() ? readMemberList(text, monthFirst()) : null), [text]);
  const rows = list?.ok ? list.rows : [];
  const faults = rows.flatMap((row) => row.problems.map((problem) => t('people.paste.rowProblem', { row: row.line, problem: problemInWords(problem) })));
  const { busy, error, onSubmit } = useSubmit(async () => {
    if (faults.length > 0 || rows.length === 0) return;
    try {
      await api('POST', '/people/batch', { people: rows.map((row) => row.person) });
    } catch (e) {
      // D27: all or nothing; each person at fault named by its row in the pasted text.
      const errors = e instanceof ApiError ? (e.errors as unknown as BatchError[]).filter((f) => typeof f.index === 'number') : [];
      if (errors.length === 0) throw new Error(t('people.paste.notAdded', { error: personRefusalInWords((e as Error).message) }));
      const named = errors.map((f) => t('people.paste.rowProblem', { row: rows[f.index]?.line ?? f.index + 2, problem: personRefusalInWords(f.error, rows[f.index]?.person.iban ?? '') }));
      throw new Error(`${t('people.paste.nothingAdded')} ${named.join(' ')}`);
    }
    setText('');
    onAdded(rows.length);
  });

  return (
    <form aria-label={t('people.paste.label', { context: bookStyle })} onSubmit={(e) => void onSubmit(e)} className="member-paste">
      <label>
        {t('people.paste.textLabel')}
        <textarea rows={6} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={hintId} spellCheck={false} className="pasted" />
      </label>
      <p id={hintId} className="muted small">
        {t('people.paste.hint')}
      </p>
      {list && !list.ok && (
        <p className="error" role="alert">
          {list.reason === 'noNameColumn' ? t('people.paste.noNameColumn') : list.reason === 'empty' ? t('people.paste.empty') : t('people.paste.unreadable', { detail: list.detail ?? '' })}
        </p>
      )}
      {list?.ok && (
        <>
          {list.ignored.length > 0 && <p className="muted small">{t('people.paste.ignored', { columns: list.ignored.join(', ') })}</p>}
          <Scroll>
            <table aria-label={t('people.paste.preview')} className="member-preview">
              <TableHead columns={[t('people.paste.row'), ...PREVIEW_COLUMNS.map((column) => t(`people.paste.columns.${column}`))]} />
              <tbody>
                {rows.map((row) => (
                  <tr key={row.line} className={row.problems.length ? 'at-fault' : undefined}>
                    <td className="num">{row.line}</td>
                    {cellsOf(row).map((cell, i) => (
                      <td key={i}>{cell}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
          {faults.length > 0 ? (
            <div className="error" role="alert">
              <p>{t('people.paste.fixFirst', { count: faults.length })}</p>
              <ul>
                {faults.map((fault) => (
                  <li key={fault}>{fault}</li>
                ))}
              </ul>
            </div>
          ) : (
            <p className="muted">{t('people.paste.ready', { count: rows.length, context: bookStyle })}</p>
          )}
        </>
      )}
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" disabled={busy || !list?.ok || rows.length === 0 || faults.length > 0}>
          {t('people.paste.add', { count: rows.length, context: bookStyle })}
        </button>
      </div>
    </form>
  );
}
