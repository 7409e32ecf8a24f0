import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, withQuery, type Account, type Budget, type BudgetRequest } from '../api';
import { useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { formatAmount, formatCents, formatDate, parseSignedMoney } from '../money';
import { t } from '../i18n';
import { AmountField, amountOrThrow } from './AmountField';
import { AccountSelect } from './AccountSelect';
import { addMonths, defaultMonths, lastDayOf, monthCount } from './budget-months';

// D26 in the web app: a budget made (from last year's figures, GET /budgets/draft, or empty) or
// changed; its lines typed as money (D19), the planned income, spending and result shown as they
// are typed. D12: "budget" in a personal book, "plan" in a club's (t's book-style context).

type Per = Budget['lines'][number]['per'];

/** A line as the person types it: the account chosen (its id, or '' not yet), the amount as typed. */
interface LineTyped {
  key: number;
  account: string;
  amount: string;
  per: Per;
  rollover: boolean;
}

/** D26: the most months a budget spans, and the largest amount of a line (src/book/budgets.ts). */
const MONTHS_MAX = 36;
const AMOUNT_MAX_CENTS = 10 ** 13;

let nextKey = 1;
const lineOf = (l: Partial<LineTyped> = {}): LineTyped => ({ key: nextKey++, account: '', amount: '', per: 'month', rollover: false, ...l });

/** The whole budget's planned income and spending (D26: a month line counts once per month), of the amounts understood so far. */
function totalsOf(lines: LineTyped[], accounts: Account[], months: number) {
  let income = 0;
  let expense = 0;
  for (const line of lines) {
    const cents = parseSignedMoney(line.amount);
    const kind = accounts.find((a) => String(a.id) === line.account)?.kind;
    if (cents === null || cents < 0 || !kind) continue;
    const planned = line.per === 'month' ? cents * months : cents;
    if (kind === 'income') income += planned;
    if (kind === 'expense') expense += planned;
  }
  return { income, expense, result: income - expense };
}

/** D26's months, checked before the server is asked (its refusals are in English, D29). */
function checkMonths(from: string, to: string): void {
  if (!/^\d{4}-\d{2}$/.test(from) || !/^\d{4}-\d{2}$/.test(to)) throw new Error(t('budgets.form.chooseMonths'));
  if (to < from) throw new Error(t('budgets.form.toBeforeFrom'));
  if (monthCount(from, to) > MONTHS_MAX) throw new Error(t('budgets.form.tooManyMonths', { max: MONTHS_MAX, count: monthCount(from, to) }));
}

/** What the form sends, or the first thing to mend, thrown as a sentence in the person's language. */
function requestOf(name: string, from: string, to: string, lines: LineTyped[], style: string): BudgetRequest {
  if (!name.trim()) throw new Error(t('budgets.form.enterName', { context: style }));
  checkMonths(from, to);
  return {
    name: name.trim(),
    from,
    to,
    lines: lines.map((line, i) => {
      if (!line.account) throw new Error(t('budgets.form.noAccount', { line: i + 1 }));
      const prefix = t('budgets.form.linePrefix', { line: i + 1 });
      const cents = amountOrThrow(line.amount, { prefix });
      if (cents > AMOUNT_MAX_CENTS) throw new Error(`${prefix}${t('budgets.form.tooLarge', { max: formatCents(AMOUNT_MAX_CENTS) })}`);
      return { account_id: Number(line.account), amount_cents: cents, per: line.per, rollover: line.per === 'month' && line.rollover };
    }),
  };
}

/** The basis dates GET /budgets/draft takes when none are given: the 12 months before `from`. */
const defaultBasis = (from: string) => ({ from: `${addMonths(from, -12)}-01`, to: lastDayOf(addMonths(from, -1)) });

/** One line: its account (income or spending, none another line names), amount, how often, rollover. */
function LineFields({ line, n, accounts, taken, onChange, onRemove }: { line: LineTyped; n: number; accounts: Account[]; taken: Set<string>; onChange(change: Partial<LineTyped>): void; onRemove(): void }) {
  const { bookStyle } = useApp();
  const { t } = useTranslation();
  const name = accounts.find((a) => String(a.id) === line.account)?.name;
  return (
    <fieldset className="stack budget-line">
      <legend>{name ? t('budgets.form.lineOf', { line: n, account: name }) : t('budgets.form.line', { line: n })}</legend>
      <div className="row">
        <AccountSelect
          label={t('budgets.form.account')}
          // Only income and spending accounts (D26), whatever else a picker offers (D27's people's accounts).
          accounts={accounts.filter((a) => (a.kind === 'income' || a.kind === 'expense') && (String(a.id) === line.account || !taken.has(String(a.id))))}
          kinds={['income', 'expense']}
          value={line.account}
          onChange={(account) => onChange({ account })}
        />
        <AmountField label={t('budgets.form.amount')} value={line.amount} onChange={(amount) => onChange({ amount })} />
        <label>
          {t('budgets.form.per')}
          <select value={line.per} onChange={(e) => onChange({ per: e.target.value as Per, rollover: e.target.value === 'month' && line.rollover })}>
            <option value="month">{t('budgets.form.perMonth')}</option>
            <option value="period">{t('budgets.form.perPeriod', { context: bookStyle })}</option>
          </select>
        </label>
      </div>
      {line.per === 'month' && (
        <label className="mode">
          <input type="checkbox" checked={line.rollover} onChange={(e) => onChange({ rollover: e.target.checked })} />
          {t('budgets.form.rollover')}
        </label>
      )}
      <div className="row">
        <button type="button" className="secondary" onClick={onRemove}>
          {t('budgets.form.remove', { line: n })}
        </button>
      </div>
    </fieldset>
  );
}

/**
 * A budget's form (D26): name, months, and its lines; a new one may start from last year's
 * figures. `existing` is the budget changed (PUT), else a new one is made (POST).
 */
export function BudgetForm({ accounts, existing, label, onSaved, onCancel }: { accounts: Account[]; existing: Budget | null; label: string; onSaved(said: string): void; onCancel(): void }) {
  const { bookStyle } = useApp();
  const { t } = useTranslation();
  const [initialMonths] = useState(defaultMonths);
  const [name, setName] = useState(existing?.name ?? '');
  const [from, setFrom] = useState(existing?.from ?? initialMonths.from);
  const [to, setTo] = useState(existing?.to ?? initialMonths.to);
  const [basisFrom, setBasisFrom] = useState('');
  const [basisTo, setBasisTo] = useState('');
  const [lines, setLines] = useState<LineTyped[]>(() =>
    (existing?.lines ?? []).map((l) => lineOf({ account: String(l.account_id), amount: formatAmount(l.amount_cents), per: l.per, rollover: l.rollover })),
  );
  const [drafted, setDrafted] = useState<string | null>(null);
  const add = useRef<HTMLButtonElement>(null);

  const monthsValid = /^\d{4}-\d{2}$/.test(from) && /^\d{4}-\d{2}$/.test(to) && to >= from;
  const months = monthsValid ? monthCount(from, to) : 1;
  const totals = totalsOf(lines, accounts, months);
  const basis = /^\d{4}-\d{2}$/.test(from) ? defaultBasis(from) : null;
  const taken = new Set(lines.map((l) => l.account).filter(Boolean));

  const update = (key: number, change: Partial<LineTyped>) => setLines((all) => all.map((l) => (l.key === key ? { ...l, ...change } : l)));
  const remove = (key: number) => {
    setLines((all) => all.filter((l) => l.key !== key));
    // The removed line's button is gone: keep the keyboard in the form.
    add.current?.focus();
  };

  const draft = useSubmit(async () => {
    setDrafted(null);
    checkMonths(from, to);
    // A date left empty is the server's default: the order is that of the dates it will use.
    const period = { from: basisFrom || defaultBasis(from).from, to: basisTo || defaultBasis(from).to };
    if (period.to < period.from) throw new Error(t('budgets.form.basisOrder'));
    if (lines.length > 0 && !window.confirm(t('budgets.form.confirmReplace', { count: lines.length }))) return;
    const found = await api<Budget>('GET', withQuery('/budgets/draft', { from, to, basis_from: basisFrom || undefined, basis_to: basisTo || undefined }));
    setLines(found.lines.map((l) => lineOf({ account: String(l.account_id), amount: formatAmount(l.amount_cents), per: l.per, rollover: l.rollover })));
    const words = { from: formatDate(period.from), to: formatDate(period.to) };
    setDrafted(found.lines.length === 0 ? t('budgets.form.draftEmpty', words) : t('budgets.form.draftLoaded', { count: found.lines.length, ...words }));
  });

  const save = useSubmit(async () => {
    const body = requestOf(name, from, to, lines, bookStyle);
    try {
      if (existing) await api<Budget>('PUT', `/budgets/${existing.id}`, body);
      else await api<Budget>('POST', '/budgets', body);
    } catch (e) {
      // D29: the refusal this form can meet after its own checks, in the person's words.
      if (e instanceof ApiError && e.message === 'a budget with that name already exists') throw new Error(t('budgets.form.nameTaken', { name: body.name, context: bookStyle }));
      throw e;
    }
    onSaved(existing ? t('budgets.form.saved', { name: body.name, context: bookStyle }) : t('budgets.form.made', { name: body.name, context: bookStyle }));
  });

  return (
    <form aria-label={label} className="record budget-form" noValidate onSubmit={save.onSubmit} onChange={() => save.error && save.setError(null)}>
      <label>
        {t('budgets.form.name')}
        <input required value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      </label>
      <div className="row">
        <label>
          {t('budgets.form.from')}
          <input type="month" required value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          {t('budgets.form.to')}
          <input type="month" required value={to} min={from} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      <fieldset className="stack">
        <legend>{t('budgets.form.lastYear')}</legend>
        <p className="muted small">{basis ? t('budgets.form.basisHint', { from: formatDate(basis.from), to: formatDate(basis.to) }) : t('budgets.form.chooseMonths')}</p>
        <div className="row">
          <label>
            {t('budgets.form.basisFrom')}
            <input type="date" value={basisFrom} onChange={(e) => setBasisFrom(e.target.value)} />
          </label>
          <label>
            {t('budgets.form.basisTo')}
            <input type="date" value={basisTo} min={basisFrom || undefined} onChange={(e) => setBasisTo(e.target.value)} />
          </label>
        </div>
        <div className="row">
          <button type="button" className="secondary" disabled={draft.busy} onClick={() => void draft.onSubmit()}>
            {t('budgets.form.fromDraft')}
          </button>
        </div>
        <ErrorNote error={draft.error} />
        <p className="muted small" aria-live="polite">
          {drafted ?? t('budgets.form.orEmpty')}
        </p>
      </fieldset>
      <fieldset className="stack">
        <legend>{t('budgets.form.lines')}</legend>
        {lines.length === 0 && <p className="muted">{t('budgets.form.noLines')}</p>}
        {lines.map((line, i) => (
          <LineFields key={line.key} line={line} n={i + 1} accounts={accounts} taken={taken} onChange={(change) => update(line.key, change)} onRemove={() => remove(line.key)} />
        ))}
        <div className="row">
          <button type="button" className="secondary" ref={add} onClick={() => setLines((all) => [...all, lineOf()])}>
            {t('budgets.form.add')}
          </button>
        </div>
      </fieldset>
      <output className="budget-totals stack" aria-live="polite" aria-label={t('budgets.form.totals')}>
        <span>{t('budgets.form.over', { count: months })}</span>
        <span>{t('budgets.form.plannedIncome', { amount: formatCents(totals.income) })}</span>
        <span>{t('budgets.form.plannedSpending', { amount: formatCents(totals.expense), context: bookStyle })}</span>
        <strong>{t('budgets.form.result', { amount: formatCents(totals.result) })}</strong>
      </output>
      <ErrorNote error={save.error} />
      <div className="row">
        <button type="submit" disabled={save.busy}>
          {save.busy ? t('budgets.form.saving') : existing ? t('budgets.form.save') : t('budgets.form.make', { context: bookStyle })}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('budgets.form.cancel')}
        </button>
      </div>
    </form>
  );
}
