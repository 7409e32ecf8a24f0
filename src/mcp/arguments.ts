import * as v from 'valibot';
import { NewAccountSchema } from '../book/accounts';
import { AsOfSchema, PeriodSchema } from '../book/reports';
import { AMOUNT_MAX, DESCRIPTION_MAX, INT4_MAX, NewTransactionSchema, TransactionRangeSchema } from '../book/transactions';
import { dateString } from '../text';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

// ---------------------------------------------------------------------------------------------
// Arguments (D8: a bad argument is refused with the message the HTTP API gives). Each tool's
// arguments are checked by a valibot schema: the HTTP route's own where one exists, else worded
// like it for the tool's own fields.

export const REPORTS = ['balances', 'balance_sheet', 'income_statement', 'monthly'] as const;

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`;
/** As DELETE /transactions/{id} words it (pathId); an id too large for any row is 'no such transaction'. */
const TRANSACTION_ID_MESSAGE = 'the transaction id must be a positive integer';
/** D8: amounts of the two-entry tools are integer cents above 0, within the D6 limit. */
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
  delete_transaction: v.object({
    id: v.pipe(
      v.number(TRANSACTION_ID_MESSAGE),
      v.integer(TRANSACTION_ID_MESSAGE),
      v.minValue(1, TRANSACTION_ID_MESSAGE),
      v.maxValue(INT4_MAX, 'no such transaction'),
    ),
  }),
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
} satisfies Record<string, v.GenericSchema>;

export type ToolName = keyof typeof ARGS;
export type ArgsOf<N extends ToolName> = v.InferOutput<(typeof ARGS)[N]>;
