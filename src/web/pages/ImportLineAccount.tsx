import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Account, type ImportPreview as Preview, type Person } from '../api';
import { AccountSelect } from './AccountSelect';

// D27 "Payments in" (D16, issue 40 item 4): a preview line's account, whom the line was
// recognised as and how, and the treasurer's own choice of account for it. The choice goes back to
// the server as `counter_accounts` (the server decides what is booked; the page only asks).

type Line = Preview['lines'][number];
type Match = NonNullable<Line['person_match']>;

/** How a line was recognised, in words (literal keys: the catalogue test reads them). */
const RECOGNISED: Record<Match, string> = {
  iban: 'import.person.iban',
  reference: 'import.person.reference',
  name: 'import.person.name',
};

/** The people's names by id, asked once when a line of the preview was recognised as someone. */
export function usePeopleNames(needed: boolean): Map<number, string> {
  const [names, setNames] = useState<Map<number, string>>(new Map());
  useEffect(() => {
    if (!needed) return;
    let live = true;
    api<Person[]>('GET', '/people')
      .then((people) => live && setNames(new Map(people.map((p) => [p.id, p.name]))))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [needed]);
  return names;
}

/**
 * The "booked against" cell: the account's name, a pencil that opens an account picker (the
 * cell's text stays the account's name until it is opened), and, for a line recognised as a
 * person, who and by what ("Anna Schmidt — recognised by IBAN").
 */
export function LineAccount({
  line,
  accounts,
  statementAccountId,
  accountNames,
  peopleNames,
  busy,
  onChange,
}: {
  line: Line;
  accounts: Account[];
  statementAccountId: number | undefined;
  accountNames: Map<number, string>;
  peopleNames: Map<number, string>;
  busy: boolean;
  onChange(accountId: number): void;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  // A line already imported is left out: its account is not booked, so not offered to change.
  const changeable = line.duplicate_of === null;
  return (
    <>
      {accountNames.get(line.counter_account_id)}
      {changeable && (
        <button
          type="button"
          aria-label={t('import.person.change', { line: line.line })}
          title={t('import.person.change', { line: line.line })}
          aria-expanded={open}
          disabled={busy}
          onClick={() => setOpen(!open)}
          style={{ background: 'none', border: 'none', color: 'var(--accent)', padding: '0 0.2rem', minHeight: '1.5rem', minWidth: '1.5rem', verticalAlign: 'middle', display: 'inline-flex', alignItems: 'center' }}
        >
          <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
            <path d="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
          </svg>
        </button>
      )}
      {open && (
        <AccountSelect
          label={t('import.person.account', { line: line.line })}
          accounts={accounts}
          value={String(line.counter_account_id)}
          exclude={statementAccountId === undefined ? undefined : String(statementAccountId)}
          onChange={(id) => {
            if (!id) return;
            setOpen(false);
            if (Number(id) !== line.counter_account_id) onChange(Number(id));
          }}
        />
      )}
      {line.person_id !== null && line.person_match !== null && (
        <div className="muted small">{t(RECOGNISED[line.person_match], { name: peopleNames.get(line.person_id) ?? '…' })}</div>
      )}
    </>
  );
}
