import { useEffect, useState } from 'react';
import { api, withQuery, type Account, type Section } from '../api';
import { useApp } from '../app';
import { BalanceTable, ErrorNote, ExportButtons, Link, Loading, Money, PageHeading } from '../components';
import { today } from '../money';
import { MonthlyChart, type Month } from './MonthlyChart';
import { Register } from './Register';

interface BalanceSheet {
  assets: Section;
  liabilities: Section;
  equity: Section;
  net_income_cents: number;
}
interface IncomeStatement {
  income: Section;
  expenses: Section;
  net_cents: number;
}
interface Figures {
  sheet: BalanceSheet;
  statement: IncomeStatement;
  months: Month[];
  accounts: Account[];
}
type Period = { from: string; to: string };

function SectionTable({ title, section }: { title: string; section: Section }) {
  return <BalanceTable caption={title} lines={section.lines} total={section.total_cents} />;
}

function SheetSection({ sheet }: { sheet: BalanceSheet }) {
  const { words } = useApp();
  return (
    <section aria-labelledby="sheet-heading">
      <h2 id="sheet-heading">{words.balanceSheet}</h2>
      <div className="cards">
        <SectionTable title={words.kinds.asset} section={sheet.assets} />
        <SectionTable title={words.kinds.liability} section={sheet.liabilities} />
        <SectionTable title={words.kinds.equity} section={sheet.equity} />
      </div>
      <p>
        Result so far: <Money cents={sheet.net_income_cents} />
      </p>
    </section>
  );
}

function PeriodFields({ period, onChange }: { period: Period; onChange(p: Period): void }) {
  return (
    <div className="row">
      <label>
        From
        <input type="date" value={period.from} onChange={(e) => onChange({ ...period, from: e.target.value })} />
      </label>
      <label>
        To
        <input type="date" value={period.to} onChange={(e) => onChange({ ...period, to: e.target.value })} />
      </label>
    </div>
  );
}

export function Reports() {
  const { words } = useApp();
  const [period, setPeriod] = useState<Period>({ from: `${today().slice(0, 4)}-01-01`, to: today() });
  const [figures, setFigures] = useState<Figures | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([
      // Balances as of today where the person is (the API's default is today in UTC).
      api<BalanceSheet>('GET', withQuery('/reports/balance-sheet', { as_of: today() })),
      api<IncomeStatement>('GET', withQuery('/reports/income-statement', period)),
      api<Month[]>('GET', withQuery('/reports/monthly', period)),
      api<Account[]>('GET', '/accounts'),
    ])
      .then(([sheet, statement, months, accounts]) => {
        setFigures({ sheet, statement, months, accounts });
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  }, [period]);

  return (
    <main>
      <PageHeading>Reports</PageHeading>
      <p>
        <Link to="/reports/annual">Annual report</Link> <span className="muted">— a year on one printable page</span>
      </p>
      {!figures ? (
        error ? <ErrorNote error={error} /> : <Loading />
      ) : (
        <>
          <SheetSection sheet={figures.sheet} />
          <section aria-labelledby="statement-heading">
            <h2 id="statement-heading">{words.incomeStatement}</h2>
            <PeriodFields period={period} onChange={setPeriod} />
            <ErrorNote error={error} />
            <div className="cards">
              <SectionTable title={words.kinds.income} section={figures.statement.income} />
              <SectionTable title={words.kinds.expense} section={figures.statement.expenses} />
            </div>
            <p>
              Net: <Money cents={figures.statement.net_cents} />
            </p>
            <MonthlyChart months={figures.months} />
          </section>
          <section aria-labelledby="export-heading">
            <h2 id="export-heading">Download</h2>
            <ExportButtons period={period} />
          </section>
          <Register accounts={figures.accounts} period={period} />
        </>
      )}
    </main>
  );
}
