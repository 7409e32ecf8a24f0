import * as v from 'valibot';
import { NewAccountSchema } from '../book/accounts';
import { NewBudgetSchema } from '../book/budgets';
import { NewPersonSchema, PeopleQuerySchema } from '../book/people';
import { WhoOwesQuerySchema } from '../book/people-report';
import { ImportPreviewRequestSchema, ImportRequestSchema } from '../book/imports/booking';
import { NewReconciliationSchema, ReconciliationQuerySchema } from '../book/reconciliation';
import { NewScheduleSchema } from '../book/schedules';
import { AsOfSchema, PeriodSchema } from '../book/reports';
import { AMOUNT_MAX, DESCRIPTION_MAX, INT4_MAX, NewTransactionSchema, TransactionRangeSchema } from '../book/transactions';
import { CHANGES_LIMIT_DEFAULT, CHANGES_LIMIT_MAX } from '../book/changes';
import { SEARCH_LIMIT_MAX } from '../book/search';
import { dateString, isCalendarDate } from '../text';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

// ---------------------------------------------------------------------------------------------
// Arguments (D8: a bad argument is refused with the message the HTTP API gives). Each tool's
// arguments are checked by a valibot schema: the HTTP route's own where one exists, else worded
// like it for the tool's own fields.

export const REPORTS = ['balances', 'balance_sheet', 'income_statement', 'monthly'] as const;

/** As POST /schedules/{id}/occurrences/{date}/post words a bad date. */
const OCCURRENCE_DATE_MESSAGE = 'the date must be a calendar date YYYY-MM-DD';
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`;
/** As DELETE /transactions/{id} words it (pathId); an id too large for any row is 'no such transaction'. */
const TRANSACTION_ID_MESSAGE = 'the transaction id must be a positive integer';
/** D8: amounts of the two-entry tools are integer cents above 0, within the D6 limit. */
/** As GET /reports/budget words a bad `id` (positiveIntegerParam), under the argument's name. */
const BUDGET_ID_MESSAGE = 'budget_id must be a positive integer';
const AMOUNT_MESSAGE = `amount_cents must be an integer from 1 to ${AMOUNT_MAX}`;

/** An account id of a two-entry tool, worded like an entry's account_id (EntrySchema) under its own name. */
function accountIdArg(field: string, description: string) {
  return v.pipe(
    v.number(`${field} must be an integer`),
    v.integer(`${field} must be an integer`),
    v.minValue(1, `${field} must be a positive integer`),
    v.maxValue(INT4_MAX, `${field} names no account`),
    v.description(description),
  );
}

const occurredOnArg = v.optional(
  v.pipe(dateString('occurred_on'), v.description('the date, YYYY-MM-DD; today (UTC) when left out')),
);

/** Money in, money out and move: one shape, two entries (D6: client words for one transaction shape). */
const TwoEntryArgs = v.object({
  from_account_id: accountIdArg('from_account_id', 'the account the money comes from'),
  to_account_id: accountIdArg('to_account_id', 'the account the money goes to'),
  amount_cents: v.pipe(
    v.number(AMOUNT_MESSAGE),
    v.integer(AMOUNT_MESSAGE),
    v.minValue(1, AMOUNT_MESSAGE),
    v.maxValue(AMOUNT_MAX, AMOUNT_MESSAGE),
    v.description('the amount in cents, a whole number above 0 (12.50 is 1250)'),
  ),
  occurred_on: occurredOnArg,
  description: v.pipe(
    NewTransactionSchema.entries.description,
    v.description(`what it was for, at most ${DESCRIPTION_MAX} characters`),
  ),
});

/**
 * The id of a row that the HTTP twin takes in its path, worded as pathId words it there ("the
 * account id must be a positive integer"; one too large for any row is "no such account").
 */
function pathIdArg(what: string, description?: string) {
  const message = `the ${what} id must be a positive integer`;
  const id = v.pipe(v.number(message), v.integer(message), v.minValue(1, message), v.maxValue(INT4_MAX, `no such ${what}`));
  return description === undefined ? id : v.pipe(id, v.description(description));
}

const transactionIdArg = pathIdArg('transaction');
/** A whole number from 1 to `max`, as the HTTP query parameter of the same name words it. */
const upTo = (field: string, max: number, description: string) => {
  const message = `${field} must be an integer from 1 to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(1, message), v.maxValue(max, message), v.description(description));
};

export const ARGS = {
  list_accounts: v.object({}),
  create_account: NewAccountSchema,
  get_settings: v.object({}),
  list_transactions: v.object({
    ...TransactionRangeSchema.entries,
    limit: v.optional(
      v.pipe(
        v.number(LIMIT_MESSAGE),
        v.integer(LIMIT_MESSAGE),
        v.minValue(1, LIMIT_MESSAGE),
        v.maxValue(LIST_LIMIT_MAX, LIMIT_MESSAGE),
        v.description(`at most this many transactions (default ${LIST_LIMIT_DEFAULT})`),
      ),
    ),
  }),
  delete_transaction: v.object({ id: transactionIdArg }),
  // POST /transactions' body, except that the date may be left out (D8).
  record_transaction: v.object({ ...NewTransactionSchema.entries, occurred_on: occurredOnArg }),
  record_money_in: TwoEntryArgs,
  record_money_out: TwoEntryArgs,
  move_money: TwoEntryArgs,
  // The query parameters of the /reports/* routes; each report reads the ones it takes.
  get_report: v.object({
    report: v.picklist(REPORTS, `report must be one of ${REPORTS.join(', ')}`),
    ...AsOfSchema.entries,
    ...PeriodSchema.entries,
  }),
  // D18: the twins of D15's routes.
  get_transaction: v.object({ id: transactionIdArg }),
  update_transaction: v.object({ id: transactionIdArg, ...NewTransactionSchema.entries }),
  restore_transaction: v.object({ id: transactionIdArg }),
  rename_account: v.object({ id: accountIdArg('id', 'the account to rename'), name: NewAccountSchema.entries.name }),
  list_changes: v.object({
    subject: v.optional(v.picklist(['transaction', 'account', 'settings'], 'subject must be transaction, account or settings')),
    subject_id: v.optional(upTo('subject_id', INT4_MAX, 'the id of one transaction or account')),
    before: v.optional(upTo('before', Number.MAX_SAFE_INTEGER, 'only records older than this id (next_before of the previous page)')),
    limit: v.optional(upTo('limit', CHANGES_LIMIT_MAX, `at most this many records (default ${CHANGES_LIMIT_DEFAULT})`)),
  }),
  search_transactions: v.object({
    q: v.optional(v.pipe(v.string('q must be text'), v.maxLength(DESCRIPTION_MAX, `q has at most ${DESCRIPTION_MAX} characters`), v.description('words of the description or of an account name (any case, any accents), or an amount (94.90, 94,90, 94)'))),
    account_id: v.optional(accountIdArg('account_id', 'only transactions with an entry on this account')),
    ...TransactionRangeSchema.entries,
    limit: v.optional(upTo('limit', SEARCH_LIMIT_MAX, `at most this many transactions (default ${LIST_LIMIT_DEFAULT})`)),
  }),
  // D24: the twins of D16's and D20–D22's routes; a path id of the route is an argument named after it.
  get_reconciliation: v.object({
    account_id: pathIdArg('account', 'the bank, cash or card account'),
    ...ReconciliationQuerySchema.entries,
  }),
  reconcile_account: v.object({
    account_id: pathIdArg('account', 'the bank, cash or card account the statement is for'),
    ...NewReconciliationSchema.entries,
  }),
  list_schedules: v.object({}),
  // POST /schedules' body, with its check that until_on is not before start_on.
  create_schedule: NewScheduleSchema,
  list_due: v.object({
    through: v.optional(v.pipe(dateString('through'), v.description('the last date to look at, YYYY-MM-DD; today (UTC) when left out'))),
  }),
  post_due: v.object({
    schedule_id: pathIdArg('schedule', 'the schedule the occurrence belongs to'),
    // Worded as the route words a bad date in its path.
    occurs_on: v.pipe(
      v.string(OCCURRENCE_DATE_MESSAGE),
      v.check(isCalendarDate, OCCURRENCE_DATE_MESSAGE),
      v.description('the occurrence to post, YYYY-MM-DD (occurs_on of list_due)'),
    ),
  }),
  list_attachments: v.object({ transaction_id: pathIdArg('transaction', 'the transaction whose files to list') }),
  preview_statement: v.object({ ...ImportPreviewRequestSchema.entries }),
  import_statement: v.object({ ...ImportRequestSchema.entries }),
  // D26: the twins of GET /budgets, GET /reports/budget (its query's id named budget_id) and POST /budgets.
  list_budgets: v.object({}),
  get_budget_report: v.object({
    budget_id: v.pipe(
      v.number(BUDGET_ID_MESSAGE),
      v.integer(BUDGET_ID_MESSAGE),
      v.minValue(1, BUDGET_ID_MESSAGE),
      v.maxValue(INT4_MAX, `budget_id must be at most ${INT4_MAX}`),
      v.description('the budget (id of list_budgets)'),
    ),
    as_of: v.optional(v.pipe(dateString('as_of'), v.description('the date "to date" figures run through, YYYY-MM-DD; today (UTC) when left out'))),
  }),
  // POST /budgets' body, with its checks across fields (to not before from, at most 36 months).
  create_budget: NewBudgetSchema,
  // D27: the twins of GET /people?q=, GET /people/{id}/statement, GET /reports/people and POST /people.
  list_people: v.object({ q: PeopleQuerySchema.entries.q }),
  get_person_statement: v.object({ person_id: pathIdArg('person', 'the person (id of list_people)'), ...PeriodSchema.entries }),
  who_owes: v.object({ ...WhoOwesQuerySchema.entries }),
  create_person: NewPersonSchema,
} satisfies Record<string, ArgumentsSchema>;

/** A tool's arguments: an object, maybe with checks across its fields (create_schedule). */
type ObjectArgs = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;
type ArgumentsSchema = ObjectArgs | v.SchemaWithPipe<readonly [ObjectArgs, ...v.PipeItem<any, any, v.BaseIssue<unknown>>[]]>;

/** The argument names of a tool's schema. */
function argumentNames(schema: ArgumentsSchema): string[] {
  return Object.keys('pipe' in schema ? schema.pipe[0].entries : schema.entries);
}

/**
 * D18: arguments are strict. An unknown one is refused by name (before the schema, whose object
 * would drop it quietly), and every advertised input schema says `additionalProperties: false`.
 */
export function unknownArgument(tool: ToolName, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const names = argumentNames(ARGS[tool]);
  return Object.keys(input).find((key) => !names.includes(key));
}

export type ToolName = keyof typeof ARGS;
export type ArgsOf<N extends ToolName> = v.InferOutput<(typeof ARGS)[N]>;
