import * as v from 'valibot';
import { int, responseSchema, timestamp } from '../shapes';
import { accountKind, bookStyle } from '../db/schema';
import { DATE_FORMATS } from './imports/date-formats';

// The JSON shapes in which the book is answered: by the HTTP routes (documented in /openapi.json)
// and by the MCP tools (their structured output, D8), written once as valibot schemas.

export { int };
export const cents = v.pipe(v.number(), v.integer(), v.description('integer cents'));
export const date = v.pipe(v.string(), v.isoDate(), v.description('YYYY-MM-DD'));
export const kind = v.picklist(accountKind.enumValues);

export const Account = responseSchema('Account', v.strictObject({ id: int, name: v.string(), kind }));
const settingsEntries = {
  book_style: v.picklist(bookStyle.enumValues),
  currency: v.pipe(v.string(), v.description('D20: ISO 4217, two decimals; the web app\'s money and the exports\' default commodity')),
  closed_through: v.pipe(v.nullable(date), v.description('D20: nothing dated on or before it may change; null: no period is closed')),
  sepa: v.pipe(
    v.optional(v.strictObject({ creditor_name: v.string(), creditor_iban: v.string(), creditor_bic: v.optional(v.string()), creditor_id: v.string() })),
    v.description('D27: the club\'s creditor details for SEPA direct debit; absent until set'),
  ),
};
export const Settings = responseSchema('Settings', v.strictObject(settingsEntries));
/** Settings as a change record holds them: records written before D20 have book_style only. */
const SettingsRecord = v.strictObject({
  book_style: settingsEntries.book_style,
  currency: v.optional(settingsEntries.currency),
  closed_through: v.optional(settingsEntries.closed_through),
  sepa: settingsEntries.sepa,
});
export const Entry = responseSchema('Entry', v.strictObject({ account_id: int, account_name: v.string(), amount_cents: cents }));
const transactionEntries = {
  id: int,
  occurred_on: date,
  description: v.string(),
  created_by_email: v.nullable(v.string()),
  entries: v.pipe(v.array(Entry), v.description('ordered by entry id')),
};
export const Transaction = responseSchema('Transaction', v.strictObject(transactionEntries));
/** GET /transactions: with `limit` (D15's paged form) each transaction also says whether it is reconciled (D20). */
export const ListedTransaction = responseSchema('ListedTransaction', v.strictObject({
  ...transactionEntries,
  reconciled: v.pipe(v.optional(v.boolean()), v.description('with limit only: true when any of its entries is reconciled (D20)')),
  attachments: v.pipe(v.optional(v.pipe(v.number(), v.integer())), v.description('with limit only: how many receipts it has (D22)')),
}));
export const CreatedTransaction = responseSchema('CreatedTransaction', v.strictObject({ id: int }));

// D7: reports, in natural sign (D6).
export const KindTotals = responseSchema('KindTotals', v.strictObject({ asset: cents, liability: cents, equity: cents, income: cents, expense: cents }));
export const Balances = responseSchema('Balances', v.strictObject({
  as_of: date,
  accounts: v.pipe(v.array(v.strictObject({ id: int, name: v.string(), kind, balance_cents: cents })), v.description('in the GET /accounts order')),
  totals: KindTotals,
}));
export const Section = responseSchema('Section', v.pipe(
  v.strictObject({
    lines: v.array(v.strictObject({ id: int, name: v.string(), balance_cents: cents })),
    total_cents: cents,
  }),
  v.description('every account of the section, zero balances included, in the GET /accounts order'),
));
export const BalanceSheet = responseSchema('BalanceSheet', v.strictObject({
  as_of: date,
  assets: Section,
  liabilities: Section,
  equity: Section,
  net_income_cents: v.pipe(cents, v.description('income minus expense up to as_of')),
  balanced: v.pipe(v.boolean(), v.description('assets = liabilities + equity + net income')),
}));
export const IncomeStatement = responseSchema('IncomeStatement', v.strictObject({
  from: date,
  to: date,
  income: Section,
  expenses: Section,
  net_cents: v.pipe(cents, v.description('income minus expenses')),
}));
export const Month = responseSchema('Month', v.strictObject({
  month: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/), v.description('YYYY-MM')),
  income_cents: cents,
  expense_cents: cents,
  net_cents: cents,
}));
export const Monthly = v.pipe(v.array(Month), v.description('oldest month first; months without transactions as zeros'));

/** One account's entries over a period with the running balance (natural sign). */
export const Register = responseSchema('Register', v.strictObject({
  account: Account,
  from: date,
  to: date,
  opening_balance_cents: cents,
  entries: v.pipe(
    v.array(v.strictObject({
      transaction_id: int, occurred_on: date, description: v.string(), amount_cents: cents, balance_cents: cents,
      reconciled: v.pipe(v.boolean(), v.description('D20: the entry is reconciled')),
    })),
    v.description('oldest first (occurred_on, then transaction id)'),
  ),
  closing_balance_cents: cents,
}));

// D20: the bank and the book agree.
export const Reconciliation = responseSchema('Reconciliation', v.strictObject({
  id: int,
  account_id: int,
  statement_date: date,
  statement_balance_cents: v.pipe(cents, v.description('natural sign (D6)')),
  transaction_ids: v.pipe(v.array(int), v.description('the transactions this reconciliation marked, ascending')),
  created_at: timestamp,
  created_by_email: v.nullable(v.string()),
}));
export const ReconciliationStatus = responseSchema('ReconciliationStatus', v.strictObject({
  account_id: int,
  last: v.pipe(v.nullable(Reconciliation), v.description('the account\'s latest reconciliation, whatever as_of')),
  reconciled_balance_cents: v.pipe(cents, v.description('the sum of the reconciled entries, natural sign, whatever as_of')),
  book_balance_cents: v.pipe(cents, v.description('the account\'s balance as of as_of, natural sign')),
  unreconciled: v.pipe(
    v.array(v.strictObject({ transaction_id: int, occurred_on: date, description: v.string(), amount_cents: v.pipe(cents, v.description('natural sign')) })),
    v.description('the transactions with an unreconciled entry on the account dated on or before as_of, oldest first'),
  ),
}));

// D21: things that come back.
export const ScheduleEvery = v.picklist(['week', 'month', 'year']);
export const ScheduleMode = v.picklist(['post', 'remind']);
export const Schedule = responseSchema('Schedule', v.strictObject({
  id: int,
  description: v.string(),
  entries: v.pipe(v.array(Entry), v.description('as saved; an account deleted since keeps the name it had')),
  start_on: date,
  every: ScheduleEvery,
  interval: v.pipe(int, v.description('every `interval` weeks, months or years (1–99)')),
  until_on: v.nullable(date),
  mode: ScheduleMode,
  next_on: v.pipe(v.nullable(date), v.description('the first occurrence neither posted nor skipped; null when none is left')),
  created_by_email: v.pipe(v.nullable(v.string()), v.description('null once its creator is removed')),
}));
export const DueOccurrence = responseSchema('DueOccurrence', v.strictObject({
  schedule_id: int,
  occurs_on: date,
  description: v.string(),
  entries: v.array(Entry),
  blocked: v.pipe(v.nullable(v.string()), v.description('why it cannot be posted (a closed period, a deleted account); null when it can')),
}));
export const Forecast = responseSchema('Forecast', v.strictObject({
  from: date,
  to: date,
  accounts: v.pipe(
    v.array(v.strictObject({
      id: int,
      name: v.string(),
      kind: v.picklist(['asset', 'liability']),
      balance_cents: v.pipe(cents, v.description("today's balance, natural sign")),
      points: v.pipe(
        v.array(v.strictObject({ on: date, balance_cents: cents })),
        v.description('one per date on which occurrences not yet handled touch the account: the balance after that date'),
      ),
    })),
    v.description('asset and liability accounts, in the GET /accounts order'),
  ),
}));
// D22: receipts.
export const Attachment = responseSchema('Attachment', v.strictObject({
  id: int,
  transaction_id: int,
  name: v.string(),
  content_type: v.pipe(v.string(), v.description('judged by the bytes: image/jpeg, image/png, image/webp, image/gif, image/heic, image/heif or application/pdf')),
  size: v.pipe(int, v.description('bytes')),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('lower-case hex')),
  created_at: timestamp,
  created_by_email: v.nullable(v.string()),
}));

/** A schedule as a change record holds it (subject `schedule`); a skip's `after` also names the date skipped (issue 37 item 6). */
const ScheduleRecord = v.strictObject({
  ...Schedule.entries,
  skipped_on: v.pipe(v.optional(date), v.description('a skip\'s record only: the occurrence skipped')),
});

/** D26: a month `YYYY-MM`. */
export const month = v.pipe(v.string(), v.regex(/^\d{4}-(0[1-9]|1[0-2])$/), v.description('a month, YYYY-MM'));
export const BudgetPer = v.picklist(['month', 'period']);
export const BudgetLine = responseSchema('BudgetLine', v.strictObject({
  account_id: int,
  account_name: v.string(),
  kind: v.picklist(['income', 'expense']),
  amount_cents: v.pipe(cents, v.description('≥ 0, natural sign: what the plan earns or spends')),
  per: v.pipe(BudgetPer, v.description('`month`: that amount in every month; `period`: once, for the whole budget')),
  rollover: v.pipe(v.boolean(), v.description('`month` lines only: what a month leaves unspent, or overspends, moves into the next')),
}));
export const Budget = responseSchema('Budget', v.strictObject({
  id: v.pipe(v.nullable(int), v.description('null for a draft (not stored)')),
  name: v.pipe(v.string(), v.description('empty for a draft')),
  from: month,
  to: month,
  lines: v.pipe(v.array(BudgetLine), v.description('in the order sent')),
}));
const planAndActual = v.strictObject({ planned_cents: cents, actual_cents: cents });
export const BudgetReport = responseSchema('BudgetReport', v.strictObject({
  budget_id: int,
  name: v.string(),
  from: month,
  to: month,
  as_of: date,
  lines: v.array(v.strictObject({
    account_id: int,
    account_name: v.string(),
    kind: v.picklist(['income', 'expense']),
    per: BudgetPer,
    rollover: v.boolean(),
    planned_cents: v.pipe(cents, v.description('the whole budget: amount × months, or the period\'s amount')),
    planned_to_date_cents: v.pipe(cents, v.description('`month`: every month begun by as_of; `period`: the amount once as_of reaches the budget\'s first day')),
    actual_cents: v.pipe(cents, v.description('entries dated in the budget\'s months, whatever as_of')),
    actual_to_date_cents: v.pipe(cents, v.description('entries dated from the budget\'s first day through as_of')),
    months: v.array(v.strictObject({
      month,
      planned_cents: v.pipe(v.nullable(cents), v.description('null on a `period` line')),
      actual_cents: cents,
      available_cents: v.pipe(v.nullable(cents), v.description('rollover only: the month\'s amount plus, for every earlier month, its amount minus its actual')),
    })),
  })),
  unbudgeted: v.pipe(
    v.array(v.strictObject({ account_id: int, account_name: v.string(), kind: v.picklist(['income', 'expense']), actual_cents: cents })),
    v.description('income and expense accounts without a line whose actual in the budget\'s months is not zero, in GET /accounts order'),
  ),
  totals: v.strictObject({ income: planAndActual, expense: planAndActual, result: v.pipe(planAndActual, v.description('income − expense')) }),
}));

// D27: people (members in a club), their statements and who owes.
export const Person = responseSchema('Person', v.strictObject({
  id: int,
  name: v.string(),
  email: v.nullable(v.string()),
  iban: v.pipe(v.nullable(v.string()), v.description('without spaces, in capitals')),
  member_no: v.nullable(v.string()),
  joined_on: v.nullable(date),
  left_on: v.nullable(date),
  mandate: v.nullable(v.strictObject({ id: v.string(), signed_on: date })),
  dues_plan_id: v.nullable(int),
  note: v.nullable(v.string()),
  account_id: v.pipe(int, v.description('the person\'s own asset account, named as the person')),
  balance_cents: v.pipe(cents, v.description('the account\'s balance, natural sign: above zero the person owes the book, below zero the book owes the person')),
}));
/** A person as a change record holds it (D27): never email, IBAN, mandate or note. */
export const PersonRecord = responseSchema('PersonRecord', v.strictObject({
  id: int,
  name: v.string(),
  member_no: v.nullable(v.string()),
  dues_plan_id: v.nullable(int),
  joined_on: v.nullable(date),
  left_on: v.nullable(date),
}));
export const PeopleCreated = responseSchema('PeopleCreated', v.strictObject({ created: v.pipe(v.array(int), v.description('in the order sent')) }));
export const PersonStatement = responseSchema('PersonStatement', v.strictObject({
  person_id: int,
  name: v.string(),
  from: date,
  to: date,
  opening_cents: cents,
  lines: v.pipe(
    v.array(v.strictObject({ transaction_id: int, occurred_on: date, description: v.string(), amount_cents: cents, balance_cents: cents })),
    v.description('oldest first; natural sign: a charge positive, a payment negative'),
  ),
  closing_cents: cents,
}));
export const WhoOwes = responseSchema('WhoOwes', v.strictObject({
  as_of: date,
  people: v.pipe(
    v.array(v.strictObject({
      id: int,
      name: v.string(),
      balance_cents: cents,
      overdue_cents: v.pipe(cents, v.description('the balance when above zero, else 0')),
      overdue_since: v.pipe(v.nullable(date), v.description('the date of the oldest charge not settled by as_of (payments settle the oldest charges first); null when the balance is ≤ 0')),
    })),
    v.description('every person whose balance as of as_of is not zero, by name'),
  ),
  owed_to_book_cents: v.pipe(cents, v.description('the sum of the balances above zero')),
  owed_by_book_cents: v.pipe(cents, v.description('minus the sum of the balances below zero')),
}));

/** D27: a dues plan ("Membership, 5.00 a month"); its change records hold this shape too (subject `dues_plan`). */
export const DuesPlan = responseSchema('DuesPlan', v.strictObject({
  id: int,
  name: v.string(),
  amount_cents: v.pipe(cents, v.description('> 0: what each occurrence charges (the amount the plan has when the occurrence is posted)')),
  every: v.picklist(['month', 'quarter', 'year']),
  start_on: v.pipe(date, v.description('the first occurrence; then every month, 3 months or year on its day, clamped to the month\'s last day (D21)')),
  until_on: v.pipe(v.nullable(date), v.description('no occurrence after it; null: none')),
  income_account_id: int,
  members: v.pipe(int, v.description('how many people follow the plan')),
}));

/** D27: a collection by SEPA direct debit. */
export const DirectDebit = responseSchema('DirectDebit', v.strictObject({
  id: int,
  collect_on: date,
  message_id: v.pipe(v.string(), v.description('the pain.008 file\'s message id (GrpHdr/MsgId), at most 35 characters')),
  transaction_ids: v.pipe(v.array(int), v.description('one transaction per person collected, in the people\'s order by name')),
  count: int,
  total_cents: cents,
  skipped: v.pipe(
    v.array(v.strictObject({ person_id: int, reason: v.picklist(['no_iban', 'no_mandate', 'mandate_after_collect_on']) })),
    v.description('people who owe but were not collected, and why'),
  ),
}));

/** D27: what a collection on a date would take, before it is made (nothing written). */
export const DirectDebitDraft = responseSchema('DirectDebitDraft', v.strictObject({
  collect_on: date,
  people: v.pipe(v.array(v.strictObject({ person_id: int, name: v.string(), amount_cents: cents })), v.description('by name')),
  count: int,
  total_cents: cents,
  skipped: v.array(v.strictObject({ person_id: int, reason: v.picklist(['no_iban', 'no_mandate', 'mandate_after_collect_on']) })),
}));
/** D27: what one person collected is told before the debit (SEPA Core's pre-notification). */
export const PreNotification = responseSchema('PreNotification', v.strictObject({
  person_id: int,
  name: v.string(),
  email: v.nullable(v.string()),
  amount_cents: cents,
  collect_on: date,
  mandate_id: v.nullable(v.string()),
  creditor_name: v.nullable(v.string()),
  creditor_id: v.nullable(v.string()),
  remittance: v.string(),
}));

/** D15: a record of the change log; `before` and `after` are the subject's full read shapes. */
export const Change = responseSchema('Change', v.strictObject({
  id: int,
  at: timestamp,
  actor_email: v.pipe(v.nullable(v.string()), v.description('the acting person\'s email as it was then; null for the CLI')),
  via: v.pipe(
    v.picklist(['session', 'token', 'cli', 'schedule', 'dues']),
    v.description('D21: `schedule` for a transaction a schedule posted by itself; D27: `dues` for a charge a dues plan posted by itself'),
  ),
  client_id: v.pipe(v.nullable(v.string()), v.description('the token\'s OAuth client (ledger-cli for minted tokens); null for sessions, the CLI and schedules')),
  subject: v.picklist(['transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget', 'person', 'dues_plan', 'direct_debit']),
  subject_id: v.pipe(v.nullable(int), v.description('null for settings')),
  action: v.picklist(['create', 'update', 'delete', 'restore']),
  schedule_id: v.pipe(v.nullable(int), v.description('D21: the schedule that posted the transaction (via `schedule`), null otherwise')),
  before: v.nullable(v.union([Transaction, Account, SettingsRecord, Reconciliation, ScheduleRecord, Attachment, Budget, PersonRecord, DuesPlan])),
  after: v.nullable(v.union([Transaction, Account, SettingsRecord, Reconciliation, ScheduleRecord, Attachment, Budget, PersonRecord, DuesPlan])),
  // Issue 37 item 6: read beside the record (never stored in it), so History can tell the step.
  statement_line: v.pipe(
    v.optional(v.strictObject({ account_id: int, account_name: v.string(), occurred_on: date, linked: v.boolean() })),
    v.description('a transaction\'s `create` record only, when a bank statement line made the transaction (`linked` false) or was linked to it since (`linked` true, D16): the account, and the line\'s date'),
  ),
  transaction: v.pipe(
    v.optional(v.strictObject({ id: int, description: v.string(), occurred_on: date })),
    v.description('a receipt\'s (subject `attachment`) record only: its transaction as the change log last held it before this record'),
  ),
}));
export const ChangePage = responseSchema('ChangePage', v.strictObject({
  changes: v.pipe(v.array(Change), v.description('newest first')),
  next_before: v.pipe(v.nullable(int), v.description('pass as `before` for the next page; null on the last')),
}));

// D16: bank statements in.
export const ImportRule = responseSchema('ImportRule', v.strictObject({ id: int, pattern: v.string(), account_id: int }));
export const ImportLineError = responseSchema('ImportLineError', v.strictObject({
  line: v.pipe(int, v.description('CSV: the 1-based physical line in the file; OFX and camt.053: the 1-based position of the entry')),
  error: v.string(),
}));
export const StatementDateFormat = v.picklist(DATE_FORMATS);
export const StatementBalance = responseSchema('StatementBalance', v.strictObject({
  on: date,
  amount_cents: v.pipe(cents, v.description("natural sign (D6) of the statement's account")),
}));
export const ImportPreview = responseSchema('ImportPreview', v.strictObject({
  lines: v.array(v.strictObject({
    line: int,
    occurred_on: date,
    description: v.string(),
    amount_cents: v.pipe(cents, v.description('money into the statement account positive')),
    counter_account_id: int,
    rule_id: v.pipe(v.nullable(int), v.description('the rule that chose the counter account; null: a person, counter_accounts or unmatched_account_id chose it')),
    person_id: v.pipe(v.nullable(int), v.description("D27: the person the line is recognised as, whose account is the counter account; null: no one (or counter_accounts chose the account)")),
    person_match: v.pipe(v.nullable(v.picklist(['iban', 'reference', 'name'])), v.description("D27: how: the counterparty's IBAN, the person's member number or mandate id in the text, or the counterparty's name; null with person_id")),
    duplicate_of: v.pipe(v.nullable(int), v.description('the transaction this line was imported as (or matches) before; null: new')),
    match_of: v.pipe(
      v.nullable(int),
      v.description('a transaction typed by hand with the same amount on the account within match_days, nearest first, that `matches` may link this line to; null: none'),
    ),
    reconciled_period: v.pipe(
      v.boolean(),
      v.description("dated on or before the account's last reconciliation's statement_date: importing it changes a reconciled balance (it is imported as asked)"),
    ),
  })),
  errors: v.array(ImportLineError),
  date_format: v.pipe(v.nullable(StatementDateFormat), v.description('CSV: the format the dates were read in (chosen by the file when csv.date_format is auto); null for OFX and camt.053')),
  statement: v.pipe(
    v.strictObject({ opening: v.nullable(StatementBalance), closing: v.nullable(StatementBalance) }),
    v.description('the balances the file states (camt.053 OPBD/PRCD and CLBD, OFX LEDGERBAL, a CSV balance column); null when it states none'),
  ),
  book_closing_cents: v.pipe(
    v.nullable(cents),
    v.description("the account's balance on the closing date as it would be after this import (lines with a match_of counted once, as linked), natural sign; null without a closing balance"),
  ),
  agrees: v.pipe(v.nullable(v.boolean()), v.description('the closing balance equals book_closing_cents; null without a closing balance')),
}));
export const ImportResult = responseSchema('ImportResult', v.strictObject({
  created: v.pipe(v.array(int), v.description('the new transaction ids, in the order of the lines')),
  duplicates: v.pipe(v.array(int), v.description('the line numbers left out as duplicates')),
  errors: v.array(ImportLineError),
  linked: v.optional(v.pipe(v.array(int), v.description('the transactions typed by hand that `matches` linked lines to, in the order of the lines; only when `matches` was sent'))),
}));
