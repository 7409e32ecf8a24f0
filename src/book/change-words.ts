import { fillIn, startingBalanceInWords, startingBalanceOf } from './debt-words';
import { amountMoved, type AccountKind, type BookStyle } from './rules';
import type { changes } from '../db/schema';

type ChangeRow = typeof changes.$inferSelect;

// A change record (D15) in words: what History shows, and the `summary` of D22's GET
// /export/changes.csv for the auditors. One wording for both: the web app passes its catalogue's
// sentences (D29, the chosen language) and its own money, date and time formats (the person's
// locale); the export keeps the English sentences below and plain English formats (the CSV is
// part of the API, its English never changes).

type Every = 'week' | 'month' | 'year';
interface Line {
  account_id: number;
  account_name: string;
  amount_cents: number;
}
interface TransactionShape {
  occurred_on: string;
  description: string;
  entries: Line[];
}
interface ScheduleShape {
  description: string;
  entries: Line[];
  every: Every;
  interval: number;
  start_on: string;
  until_on: string | null;
  mode: 'post' | 'remind';
}
interface BudgetLine {
  account_id: number;
  account_name: string;
  amount_cents: number;
  per: 'month' | 'period';
  rollover: boolean;
}
/** D26's Budget, as its change records hold it. */
interface BudgetShape {
  name: string;
  from: string;
  to: string;
  lines: BudgetLine[];
}

/** D27's DuesPlan, as its change records hold it. */
interface DuesPlanShape {
  name: string;
  amount_cents: number;
  every: 'month' | 'quarter' | 'year';
  start_on: string;
  until_on: string | null;
  income_account_id: number;
}
/** A dues plan's rhythm in D21's words: a quarter is every 3 months. */
const rhythmOf = (plan: DuesPlanShape): [Every, number] => (plan.every === 'quarter' ? ['month', 3] : [plan.every, 1]);

/** What a change record holds, as GET /changes answers it (the fields the words need). */
export interface ChangeRecord {
  at: string;
  actor_email: string | null;
  via: ChangeRow['via'];
  client_id: string | null;
  subject: ChangeRow['subject'];
  subject_id: number | null;
  action: 'create' | 'update' | 'delete' | 'restore';
  schedule_id: number | null;
  before: unknown;
  after: unknown;
  /** Read beside the record (issue 37 item 6): the statement line that made the transaction or was linked to it. */
  statement_line?: { account_id: number; account_name: string; occurred_on: string; linked: boolean };
  /** Read beside a receipt's record: its transaction's description and date. */
  transaction?: { id: number; description: string; occurred_on: string };
}

export interface Wording {
  money(cents: number): string;
  date(isoDate: string): string;
  /** When the change was made, as a phrase ("Mar 3 at 2:05 PM"); none: the time is left out. */
  time?(at: string): string;
  accountName?(id: number): string | undefined;
  scheduleName?(id: number): string | undefined;
  /** Issue 37 item 7: an account's kind, so that an opening balance is told as such. */
  accountKind?(id: number): AccountKind | undefined;
  /** D12: "we owe" or "the club owes"; personal when absent. */
  bookStyle?: BookStyle;
  /** The reader's email: their own changes are "You". */
  reader?: string;
  /** D29: the sentences, with {{placeholders}}; English (CHANGE_SENTENCES) unless given. */
  sentences?: ChangeSentences;
  /** An opening balance in words (src/book/debt-words.ts) in the same language; English by book style unless given. */
  startingBalanceInWords?: typeof startingBalanceInWords;
  /** German keeps a noun's capital inside a sentence ("(Anfangsbestand: …)"); English lowers "Opening balance". */
  keepsCapitals?: boolean;
  /** "every month" inside a sentence; English `howOften` lowered unless given. */
  howOften?(every: Every, interval: number): string;
  /** An account kind's name ("asset"); the API's own word unless given. */
  kindName?(kind: string): string;
  /** A book style's name ("club"); the API's own word unless given. */
  bookStyleName?(style: string): string;
  /** D26: a month `YYYY-MM` ("Jan 2027"); English short month and year unless given. */
  month?(yyyyMm: string): string;
}

/**
 * Every sentence and phrase of a change record, with {{placeholders}} (filled in one pass by
 * fillIn: a description holding "{{x}}" stays as typed). Whole sentences, so that a language puts
 * the verb where it belongs ("Sam hat den Betrag … geändert."); `who` carries the verb's person
 * where a language needs it ("Sie haben", "sam@example.org hat").
 */
export const CHANGE_SENTENCES = {
  whoYou: 'You',
  whoPerson: '{{email}}',
  whoSchedule: 'A schedule',
  whoAdmin: 'An admin command',
  viaSchedule: 'posted by the schedule “{{name}}”',
  viaScheduleGone: 'posted by a schedule since deleted',
  viaSession: 'from the web app',
  viaCli: 'with an admin command',
  viaToken: 'with a token',
  viaClient: 'through {{client}}',
  atTime: 'on {{time}}, {{via}}',
  quoted: '“{{text}}”',
  fromTo: 'from {{from}} to {{to}}',
  none: 'none',
  difference: '{{field}} {{fromTo}}',
  differencesJoin: ', ',
  differencesLastJoin: ', ',
  fieldDate: 'the date',
  fieldDescription: 'the description',
  fieldAmount: 'the amount',
  fieldAccounts: 'the accounts',
  fieldHowOften: 'how often',
  fieldFirstDate: 'the first date',
  fieldEnd: 'the end',
  fieldName: 'the name',
  fieldKind: 'the kind',
  whoDues: 'A dues plan',
  viaDues: 'posted by a dues plan',
  duesPlanName: 'the dues plan “{{name}}” ({{amount}}, {{howOften}})',
  duesPlanNameInUpdate: 'the dues plan “{{name}}” ({{amount}}, {{howOften}})',
  fieldIncomeAccount: 'the income account',
  modeToPost: 'reminding to posting by itself',
  modeToRemind: 'posting by itself to reminding',
  nothingVisible: 'nothing visible',
  settings: '{{who}} {{changes}} {{at}}.',
  settingsJoin: ' and ',
  settingsBookStyle: 'changed the book style from {{from}} to {{to}}',
  settingsCurrency: 'changed the currency from {{from}} to {{to}}',
  settingsReopened: 'reopened the books (closed through {{date}})',
  settingsClosed: 'closed the books through {{date}}',
  settingsMovedClose: 'moved the close of the books from {{from}} to {{to}}',
  settingsNothing: 'changed nothing visible of the settings',
  someAccount: 'an account',
  reconciled: '{{who}} reconciled {{account}} through {{date}} at {{amount}} {{at}}.',
  reconciliationUndone: '{{who}} undid the reconciliation of {{account}} through {{date}} at {{amount}} {{at}}.',
  receiptAdded: '{{who}} added the receipt “{{name}}” to {{transaction}} {{at}}.',
  receiptRemoved: '{{who}} removed the receipt “{{name}}” of {{transaction}} {{at}}.',
  receiptTransaction: '“{{description}}” of {{date}}',
  receiptTransactionUnknown: 'transaction {{id}}',
  transactionName: '“{{description}}” ({{amount}})',
  openingName: '“{{description}}” ({{lead}}: {{rest}})',
  transactionNameInUpdate: '“{{description}}” ({{amount}})',
  openingNameInUpdate: '“{{description}}” ({{lead}}: {{rest}})',
  accountName: 'the account “{{name}}”',
  accountNameInUpdate: 'the account “{{name}}”',
  scheduleName: 'the schedule “{{description}}” ({{amount}}, {{howOften}})',
  scheduleNameInUpdate: 'the schedule “{{description}}” ({{amount}}, {{howOften}})',
  settingsName: 'the settings',
  settingsNameInUpdate: 'the settings',
  imported: '{{who}} imported {{name}} from the statement of {{account}} of {{date}} {{at}}.',
  linked: ', since linked to the bank line of {{date}} on {{account}}',
  postedFromSchedule: '{{who}} posted {{name}} of {{date}} {{from}} {{at}}{{linked}}.',
  fromSchedule: 'from the schedule “{{name}}”',
  fromScheduleGone: 'from a schedule since deleted',
  recordedLinked: '{{who}} recorded {{name}} {{at}}{{linked}}.',
  skipped: '{{who}} skipped “{{description}}” of {{date}} {{at}}.',
  updatedOne: '{{who}} changed {{field}} {{fromTo}} of {{name}} {{at}}.',
  updatedMany: '{{who}} changed {{changes}} of {{name}} {{at}}.',
  amountChanged: '{{who}} changed the amount from {{from}} to {{to}} of “{{description}}” ({{to}}) {{at}}.',
  updatedRenamed: '{{who}} changed {{changes}} ({{amount}}) {{at}}.',
  created: '{{who}} recorded {{name}} {{at}}.',
  createdAccount: '{{who}} recorded {{name}} {{at}}.',
  createdSchedule: '{{who}} made {{name}} {{at}}.',
  deleted: '{{who}} deleted {{name}} {{at}}.',
  restored: '{{who}} restored {{name}} {{at}}.',
  budgetName: 'the budget “{{name}}” ({{from}} – {{to}}, {{lines}})',
  planName: 'the plan “{{name}}” ({{from}} – {{to}}, {{lines}})',
  budgetNameShort: 'the budget “{{name}}”',
  planNameShort: 'the plan “{{name}}”',
  budgetLine: '1 line',
  budgetLines: '{{count}} lines',
  createdBudget: '{{who}} made {{name}} {{at}}.',
  budgetUpdated: '{{who}} changed {{name}} {{at}}: {{changes}}.',
  fieldFirstMonth: 'the first month',
  fieldLastMonth: 'the last month',
  budgetPerMonth: '{{amount}} a month',
  budgetPerBudget: '{{amount}} for the whole budget',
  budgetPerPlan: '{{amount}} for the whole plan',
  budgetLineAdded: 'added {{account}} at {{amount}}',
  budgetLineRemoved: 'removed {{account}} ({{amount}})',
  budgetRolloverOn: 'turned rollover on for {{account}}',
  budgetRolloverOff: 'turned rollover off for {{account}}',
  personAdded: '{{who}} added {{name}} to the people {{at}}.',
  personAddedClub: '{{who}} added {{name}} to the members {{at}}.',
  personRemoved: '{{who}} removed {{name}} from the people {{at}}.',
  personRemovedClub: '{{who}} removed {{name}} from the members {{at}}.',
  personRenamed: '{{who}} renamed {{from}} to {{to}} {{at}}.',
  personUpdated: '{{who}} changed {{changes}} of {{name}} {{at}}.',
  personDataChanged: '{{who}} changed or forgot the personal data of {{name}} {{at}}.',
  fieldMemberNo: 'the member number',
  fieldJoinedOn: 'the date joined',
  fieldLeftOn: 'the date left',
  fieldDuesPlan: 'the dues plan',
  duesPlanNumber: 'plan {{id}}',
};
export type ChangeSentences = Record<keyof typeof CHANGE_SENTENCES, string>;
/** The keys of the sentences, for a catalogue that holds them one message each (the web app's `history.sentence.*`). */
export const CHANGE_SENTENCE_KEYS = Object.keys(CHANGE_SENTENCES) as (keyof ChangeSentences)[];

/** A unit of a schedule, in the singular and the plural (the web app's "How often" choice words it so too). */
export const UNITS: Record<Every, [string, string]> = { week: ['week', 'weeks'], month: ['month', 'months'], year: ['year', 'years'] };

/** "Every month", "Every 2 weeks". */
export function howOften(every: Every, interval: number): string {
  return interval === 1 ? `Every ${UNITS[every][0]}` : `Every ${interval} ${UNITS[every][1]}`;
}


/** The sentences and formats of a wording, each with its default (English). */
function partsOf(words: Wording) {
  const s = words.sentences ?? CHANGE_SENTENCES;
  return {
    s,
    say: (key: keyof ChangeSentences, values: Record<string, string> = {}) => fillIn(s[key], values),
    often: words.howOften ?? ((every: Every, interval: number) => howOften(every, interval).toLowerCase()),
    kind: words.kindName ?? ((kind: string) => kind),
    style: words.bookStyleName ?? ((style: string) => style),
  };
}
type Parts = ReturnType<typeof partsOf>;

/** Through what the change came; D21: a schedule by its description, or that it was deleted since. */
function through(change: ChangeRecord, words: Wording, { say }: Parts): string {
  if (change.via === 'schedule') {
    const name = change.schedule_id === null ? undefined : words.scheduleName?.(change.schedule_id);
    return name === undefined ? say('viaScheduleGone') : say('viaSchedule', { name });
  }
  if (change.via === 'dues') return say('viaDues');
  if (change.via === 'session') return say('viaSession');
  if (change.via === 'cli') return say('viaCli');
  return change.client_id === 'ledger-cli' ? say('viaToken') : say('viaClient', { client: String(change.client_id) });
}

/** One difference an update made: its field ("the amount") and what it became ("from 30.00 to 35.00"); a field-less one is a whole phrase. */
interface Difference {
  field?: string;
  fromTo: string;
}

/** The differences an update made ("the amount from 30.00 to 35.00"). */
function differences(change: ChangeRecord, words: Wording, { say, often, kind }: Parts): Difference[] {
  const out: Difference[] = [];
  const quoted = (text: string) => say('quoted', { text });
  const add = (field: keyof ChangeSentences, from: string, to: string) => out.push({ field: say(field), fromTo: say('fromTo', { from, to }) });
  if (change.subject === 'transaction') {
    const [b, a] = [change.before as TransactionShape, change.after as TransactionShape];
    if (b.occurred_on !== a.occurred_on) add('fieldDate', words.date(b.occurred_on), words.date(a.occurred_on));
    if (b.description !== a.description) add('fieldDescription', quoted(b.description), quoted(a.description));
    if (amountMoved(b.entries) !== amountMoved(a.entries)) add('fieldAmount', words.money(amountMoved(b.entries)), words.money(amountMoved(a.entries)));
    const accountsOf = (t: TransactionShape) => t.entries.map((e) => e.account_name).join(', ');
    if (accountsOf(b) !== accountsOf(a)) add('fieldAccounts', accountsOf(b), accountsOf(a));
  } else if (change.subject === 'schedule') {
    const [b, a] = [change.before as ScheduleShape, change.after as ScheduleShape];
    if (b.description !== a.description) add('fieldDescription', quoted(b.description), quoted(a.description));
    if (amountMoved(b.entries) !== amountMoved(a.entries)) add('fieldAmount', words.money(amountMoved(b.entries)), words.money(amountMoved(a.entries)));
    if (b.every !== a.every || b.interval !== a.interval) add('fieldHowOften', often(b.every, b.interval), often(a.every, a.interval));
    if (b.start_on !== a.start_on) add('fieldFirstDate', words.date(b.start_on), words.date(a.start_on));
    if (b.until_on !== a.until_on) add('fieldEnd', b.until_on ? words.date(b.until_on) : say('none'), a.until_on ? words.date(a.until_on) : say('none'));
    if (b.mode !== a.mode) out.push({ fromTo: say(a.mode === 'post' ? 'modeToPost' : 'modeToRemind') });
  } else if (change.subject === 'dues_plan') {
    const [b, a] = [change.before as DuesPlanShape, change.after as DuesPlanShape];
    if (b.name !== a.name) add('fieldName', quoted(b.name), quoted(a.name));
    if (b.amount_cents !== a.amount_cents) add('fieldAmount', words.money(b.amount_cents), words.money(a.amount_cents));
    if (b.every !== a.every) add('fieldHowOften', often(...rhythmOf(b)), often(...rhythmOf(a)));
    if (b.start_on !== a.start_on) add('fieldFirstDate', words.date(b.start_on), words.date(a.start_on));
    if (b.until_on !== a.until_on) add('fieldEnd', b.until_on ? words.date(b.until_on) : say('none'), a.until_on ? words.date(a.until_on) : say('none'));
    const account = (id: number) => words.accountName?.(id) ?? say('someAccount');
    if (b.income_account_id !== a.income_account_id) add('fieldIncomeAccount', account(b.income_account_id), account(a.income_account_id));
  } else {
    const [b, a] = [change.before as { name: string; kind: string }, change.after as { name: string; kind: string }];
    if (b.name !== a.name) add('fieldName', quoted(b.name), quoted(a.name));
    if (b.kind !== a.kind) add('fieldKind', kind(b.kind), kind(a.kind));
  }
  return out;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "Jan 2027": the export's plain English month. */
function englishMonth(yyyyMm: string): string {
  const [year, month] = yyyyMm.split('-');
  return `${MONTHS[Number(month) - 1] ?? month} ${year}`;
}

/** D26: "budget" in a personal book, "plan" in a club's; each its own sentence (German's gender and case differ). */
const isClub = (words: Wording) => words.bookStyle === 'club';

/** A budget by its name, months and number of lines ("the plan “2027” (Jan 2027 – Dec 2027, 5 lines)"). */
function budgetName(shape: BudgetShape, words: Wording, { say }: Parts): string {
  const month = words.month ?? englishMonth;
  const count = shape.lines.length;
  const lines = count === 1 ? say('budgetLine', { count: String(count) }) : say('budgetLines', { count: String(count) });
  return say(isClub(words) ? 'planName' : 'budgetName', { name: shape.name, from: month(shape.from), to: month(shape.to), lines });
}

/** What a line plans: "€400.00 a month", or "€1,200.00 for the whole plan". */
function lineAmount(line: BudgetLine, words: Wording, { say }: Parts): string {
  const amount = words.money(line.amount_cents);
  if (line.per === 'month') return say('budgetPerMonth', { amount });
  return say(isClub(words) ? 'budgetPerPlan' : 'budgetPerBudget', { amount });
}

/**
 * D26: what an update did to a budget, in the order of the form: its name, its months, then each
 * line (by account) whose amount changed ("Groceries from 400.00 to 450.00 a month"), added,
 * removed, or whose rollover was turned on or off.
 */
function budgetDifferences(change: ChangeRecord, words: Wording, parts: Parts): Difference[] {
  const { say } = parts;
  const [b, a] = [change.before as BudgetShape, change.after as BudgetShape];
  const month = words.month ?? englishMonth;
  const out: Difference[] = [];
  const add = (field: string, from: string, to: string) => out.push({ field, fromTo: say('fromTo', { from, to }) });
  if (b.name !== a.name) add(say('fieldName'), say('quoted', { text: b.name }), say('quoted', { text: a.name }));
  if (b.from !== a.from) add(say('fieldFirstMonth'), month(b.from), month(a.from));
  if (b.to !== a.to) add(say('fieldLastMonth'), month(b.to), month(a.to));
  const was = new Map(b.lines.map((line) => [line.account_id, line]));
  const is = new Set(a.lines.map((line) => line.account_id));
  for (const line of a.lines) {
    const old = was.get(line.account_id);
    const values = { account: line.account_name, amount: lineAmount(line, words, parts) };
    if (old === undefined) {
      out.push({ fromTo: say('budgetLineAdded', values) });
      continue;
    }
    // The same way of planning: the old amount alone, the new one with its "a month" (issue 39's wording).
    if (old.per !== line.per) add(line.account_name, lineAmount(old, words, parts), values.amount);
    else if (old.amount_cents !== line.amount_cents) add(line.account_name, words.money(old.amount_cents), values.amount);
    if (old.per === 'month' && line.per === 'month' && old.rollover !== line.rollover) {
      out.push({ fromTo: say(line.rollover ? 'budgetRolloverOn' : 'budgetRolloverOff', values) });
    }
  }
  for (const line of b.lines) {
    if (!is.has(line.account_id)) out.push({ fromTo: say('budgetLineRemoved', { account: line.account_name, amount: lineAmount(line, words, parts) }) });
  }
  return out;
}

/** D26: a budget made, changed or deleted. */
function budgetChanged(change: ChangeRecord, words: Wording, parts: Parts, who: string, at: string): string {
  const { say } = parts;
  const shape = (change.after ?? change.before) as BudgetShape;
  if (change.action === 'update') {
    const name = say(isClub(words) ? 'planNameShort' : 'budgetNameShort', { name: shape.name });
    return say('budgetUpdated', { who, name, at, changes: differencesInWords(budgetDifferences(change, words, parts), parts) });
  }
  const name = budgetName(shape, words, parts);
  return say(change.action === 'create' ? 'createdBudget' : change.action === 'delete' ? 'deleted' : 'restored', { who, name, at });
}

/** The differences as one phrase ("the date from … to …, the amount from … to …"), or "nothing visible". */
function differencesInWords(list: Difference[], { s, say }: Parts): string {
  const phrases = list.map((d) => (d.field === undefined ? d.fromTo : say('difference', { field: d.field, fromTo: d.fromTo })));
  if (phrases.length === 0) return say('nothingVisible');
  return phrases.length === 1 ? phrases[0]! : `${phrases.slice(0, -1).join(s.differencesJoin)}${s.differencesLastJoin}${phrases.at(-1)!}`;
}

/** D20: the book style and the currency changed, the books closed through a date, or reopened. */
function settingsChanged(change: ChangeRecord, words: Wording, { s, say, style }: Parts): string {
  const before = change.before as { book_style?: string; currency?: string; closed_through?: string | null };
  const after = change.after as typeof before;
  const out: string[] = [];
  if (before.book_style !== after.book_style) out.push(say('settingsBookStyle', { from: style(String(before.book_style)), to: style(String(after.book_style)) }));
  if (before.currency && after.currency && before.currency !== after.currency) out.push(say('settingsCurrency', { from: before.currency, to: after.currency }));
  const [was, is] = [before.closed_through ?? null, after.closed_through ?? null];
  if (was !== is) {
    if (is === null) out.push(say('settingsReopened', { date: words.date(was!) }));
    else if (was === null) out.push(say('settingsClosed', { date: words.date(is) }));
    else out.push(say('settingsMovedClose', { from: words.date(was), to: words.date(is) }));
  }
  return out.join(s.settingsJoin) || say('settingsNothing');
}

/** D20: "reconciled Bank through Mar 31, 2026 at €2,548.15", or its undoing. */
function reconciliationChanged(change: ChangeRecord, words: Wording, parts: Parts, who: string, at: string): string {
  const shape = (change.after ?? change.before) as { account_id: number; statement_date: string; statement_balance_cents: number };
  const account = words.accountName?.(shape.account_id) ?? parts.say('someAccount');
  const values = { who, at, account, date: words.date(shape.statement_date), amount: words.money(shape.statement_balance_cents) };
  return parts.say(change.action === 'delete' ? 'reconciliationUndone' : 'reconciled', values);
}

/**
 * D22: "added the receipt “till.jpg” to “Groceries” of Mar 3, 2026", or its removal (issue 37
 * item 6: the transaction by its description and date; "transaction 12" only when the log holds
 * nothing of it).
 */
function attachmentChanged(change: ChangeRecord, words: Wording, { say }: Parts, who: string, at: string): string {
  const shape = (change.after ?? change.before) as { name: string; transaction_id: number };
  const of = change.transaction;
  const transaction = of ? say('receiptTransaction', { description: of.description, date: words.date(of.occurred_on) }) : say('receiptTransactionUnknown', { id: String(shape.transaction_id) });
  return say(change.action === 'delete' ? 'receiptRemoved' : 'receiptAdded', { who, at, name: shape.name, transaction });
}

/** The opening balance a transaction set (issue 37 item 7), if it is one. */
function openingOf(shape: TransactionShape, words: Wording) {
  return words.accountKind ? startingBalanceOf(shape.entries, words.accountKind) : null;
}

/** A transaction by its description and what it moved: its amount, or (issue 37 item 7) the opening balance it set. */
function transactionName(shape: TransactionShape, words: Wording, { say }: Parts, inUpdate = false): string {
  const balance = openingOf(shape, words);
  if (balance === null) return say(inUpdate ? 'transactionNameInUpdate' : 'transactionName', { description: shape.description, amount: words.money(amountMoved(shape.entries)) });
  const style = words.bookStyle ?? 'personal';
  const { lead, rest } = (words.startingBalanceInWords ?? startingBalanceInWords)(style, balance, shape.description, words.money);
  return say(inUpdate ? 'openingNameInUpdate' : 'openingName', { description: shape.description, lead: words.keepsCapitals ? lead : lead.toLowerCase(), rest });
}

/**
 * Issue 37 item 6: a transaction's creation that was more than a hand entry — a reminder posted by
 * hand names its schedule (D21: the record's schedule_id), a statement line imported names the
 * statement, a hand entry linked since to a bank line says so; null for a plain one.
 */
function creationTold(change: ChangeRecord, words: Wording, parts: Parts, who: string, at: string): string | null {
  const { say } = parts;
  const shape = change.after as TransactionShape;
  const name = transactionName(shape, words, parts);
  const line = change.statement_line;
  if (line && !line.linked) return say('imported', { who, name, account: line.account_name, date: words.date(line.occurred_on), at });
  const linked = line ? say('linked', { date: words.date(line.occurred_on), account: line.account_name }) : '';
  if (change.schedule_id !== null && change.via !== 'schedule') {
    const schedule = words.scheduleName?.(change.schedule_id);
    const from = schedule === undefined ? say('fromScheduleGone') : say('fromSchedule', { name: schedule });
    return say('postedFromSchedule', { who, name, date: words.date(shape.occurred_on), from, at, linked });
  }
  return linked ? say('recordedLinked', { who, name, at, linked }) : null;
}

/** Issue 37 item 6: a skipped occurrence (its record's `after` names the date): "skipped “Rent” of Mar 1, 2026". */
function skipOf(change: ChangeRecord): string | null {
  if (change.subject !== 'schedule' || change.action !== 'update') return null;
  const after = change.after as { description: string; skipped_on?: string };
  return after.skipped_on ?? null;
}

/** What the record is about, for a sentence that names it (`inUpdate`: the form an update's sentence takes, German's "bei …"). */
function subjectName(change: ChangeRecord, words: Wording, parts: Parts, inUpdate: boolean): string {
  const shape = (change.after ?? change.before) as Record<string, unknown>;
  if (change.subject === 'transaction') return transactionName(shape as unknown as TransactionShape, words, parts, inUpdate);
  if (change.subject === 'account') return parts.say(inUpdate ? 'accountNameInUpdate' : 'accountName', { name: String(shape.name) });
  if (change.subject === 'schedule') {
    const schedule = shape as unknown as ScheduleShape;
    const values = { description: schedule.description, amount: words.money(amountMoved(schedule.entries)), howOften: parts.often(schedule.every, schedule.interval) };
    return parts.say(inUpdate ? 'scheduleNameInUpdate' : 'scheduleName', values);
  }
  if (change.subject === 'dues_plan') {
    const plan = shape as unknown as DuesPlanShape;
    const values = { name: plan.name, amount: words.money(plan.amount_cents), howOften: parts.often(...rhythmOf(plan)) };
    return parts.say(inUpdate ? 'duesPlanNameInUpdate' : 'duesPlanName', values);
  }
  return parts.say(inUpdate ? 'settingsNameInUpdate' : 'settingsName');
}

/** An update in words: the one difference, several, or a renamed transaction by its new description. */
function updateTold(change: ChangeRecord, words: Wording, parts: Parts, who: string, at: string): string {
  const { say } = parts;
  const list = differences(change, words, parts);
  // A new description already names the transaction ("from “Rnet” to “Rent”"): its amount is enough
  // beside it, so that a record with its time of day still fits three lines of a phone (issue 25 item 7).
  if (change.subject === 'transaction') {
    const [b, a] = [change.before as TransactionShape, change.after as TransactionShape];
    if (b.description !== a.description) return say('updatedRenamed', { who, changes: differencesInWords(list, parts), amount: words.money(amountMoved(a.entries)), at });
    // The amount alone changed: the sentence names the transaction by its description (the new amount is in it).
    if (list.length === 1 && amountMoved(b.entries) !== amountMoved(a.entries) && openingOf(a, words) === null) {
      return say('amountChanged', { who, from: words.money(amountMoved(b.entries)), to: words.money(amountMoved(a.entries)), description: a.description, at });
    }
  }
  const name = subjectName(change, words, parts, true);
  const only = list.length === 1 ? list[0]! : undefined;
  if (only?.field !== undefined) return say('updatedOne', { who, field: only.field, fromTo: only.fromTo, name, at });
  return say('updatedMany', { who, changes: differencesInWords(list, parts), name, at });
}

/** D27's person as its change records hold it: never email, IBAN, mandate or note. */
interface PersonShape {
  name: string;
  member_no: string | null;
  dues_plan_id: number | null;
  joined_on: string | null;
  left_on: string | null;
}

/**
 * D27: a person added, changed or deleted ("members" in a club's book, "people" in a personal one).
 * An update whose record shows no difference changed only what records never hold (email, IBAN,
 * mandate, note: a PUT of those, or `forget`).
 */
function personChanged(change: ChangeRecord, words: Wording, parts: Parts, who: string, at: string): string {
  const { say } = parts;
  const club = isClub(words);
  if (change.action !== 'update') {
    const name = (change.after ?? change.before) as PersonShape;
    if (change.action === 'delete') return say(club ? 'personRemovedClub' : 'personRemoved', { who, name: name.name, at });
    return say(club ? 'personAddedClub' : 'personAdded', { who, name: name.name, at });
  }
  const [b, a] = [change.before as PersonShape, change.after as PersonShape];
  const out: Difference[] = [];
  const text = (value: string | null) => (value === null ? say('none') : say('quoted', { text: value }));
  const day = (value: string | null) => (value === null ? say('none') : words.date(value));
  const plan = (id: number | null) => (id === null ? say('none') : say('duesPlanNumber', { id: String(id) }));
  const add = (field: keyof ChangeSentences, from: string, to: string) => out.push({ field: say(field), fromTo: say('fromTo', { from, to }) });
  if (b.member_no !== a.member_no) add('fieldMemberNo', text(b.member_no), text(a.member_no));
  if (b.joined_on !== a.joined_on) add('fieldJoinedOn', day(b.joined_on), day(a.joined_on));
  if (b.left_on !== a.left_on) add('fieldLeftOn', day(b.left_on), day(a.left_on));
  if (b.dues_plan_id !== a.dues_plan_id) add('fieldDuesPlan', plan(b.dues_plan_id), plan(a.dues_plan_id));
  if (b.name !== a.name && out.length === 0) return say('personRenamed', { who, from: b.name, to: a.name, at });
  if (b.name !== a.name) out.unshift({ field: say('fieldName'), fromTo: say('fromTo', { from: text(b.name), to: text(a.name) }) });
  if (out.length === 0) return say('personDataChanged', { who, name: a.name, at });
  return say('personUpdated', { who, changes: differencesInWords(out, parts), name: a.name, at });
}

/** One record in plain words: who ("You" for the reader), what, when (if the wording tells time), through what. */
export function describeChange(change: ChangeRecord, words: Wording): string {
  const parts = partsOf(words);
  const { say } = parts;
  const who =
    change.actor_email === null
      ? change.via === 'schedule'
        ? say('whoSchedule')
        : change.via === 'dues'
          ? say('whoDues')
          : say('whoAdmin')
      : change.actor_email.toLowerCase() === words.reader?.toLowerCase()
        ? say('whoYou')
        : say('whoPerson', { email: change.actor_email });
  const via = through(change, words, parts);
  const at = words.time ? say('atTime', { time: words.time(change.at), via }) : via;
  if (change.subject === 'reconciliation') return reconciliationChanged(change, words, parts, who, at);
  if (change.subject === 'attachment') return attachmentChanged(change, words, parts, who, at);
  if (change.subject === 'budget') return budgetChanged(change, words, parts, who, at);
  if (change.subject === 'person') return personChanged(change, words, parts, who, at);
  if (change.subject === 'settings' && change.action === 'update') return say('settings', { who, changes: settingsChanged(change, words, parts), at });
  const skipped = skipOf(change);
  if (skipped !== null) return say('skipped', { who, description: (change.after as ScheduleShape).description, date: words.date(skipped), at });
  if (change.subject === 'transaction' && change.action === 'create') {
    const told = creationTold(change, words, parts, who, at);
    if (told !== null) return told;
  }
  if (change.action === 'update') return updateTold(change, words, parts, who, at);
  const name = subjectName(change, words, parts, false);
  const key =
    change.action === 'create'
      ? change.subject === 'schedule' || change.subject === 'dues_plan'
        ? 'createdSchedule'
        : change.subject === 'account'
          ? 'createdAccount'
          : 'created'
      : change.action === 'delete'
        ? 'deleted'
        : 'restored';
  return say(key, { who, name, at });
}
