import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { z } from 'zod';
import { ACCOUNT_NAME_MAX, createAccount, listAccounts, NewAccountSchema } from './accounts';
import type { Db } from './db/database';
import { accountKind, type AccountKind, type BookStyle } from './db/schema';
import { invalid, Refusal } from './errors';
import {
  AsOfSchema,
  balanceSheetReport,
  balancesReport,
  incomeStatementReport,
  monthlyReport,
  PeriodSchema,
} from './reports';
import { getSettings } from './settings';
import { Account, Balances, BalanceSheet, CreatedTransaction, IncomeStatement, int, Monthly, Settings, Transaction } from './views';
import { dateString, describeIssues } from './text';
import {
  AMOUNT_MAX,
  deleteTransaction,
  DESCRIPTION_MAX,
  INT4_MAX,
  listTransactions,
  NewTransactionSchema,
  postTransaction,
  TransactionRangeSchema,
} from './transactions';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

// ---------------------------------------------------------------------------------------------
// Arguments (D8: a bad argument is refused with the message the HTTP API gives). Each tool's
// arguments are checked by a valibot schema: the HTTP route's own where one exists, else worded
// like it for the tool's own fields.

const REPORTS = ['balances', 'balance_sheet', 'income_statement', 'monthly'] as const;

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

const ARGS = {
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

type ToolName = keyof typeof ARGS;
type ArgsOf<N extends ToolName> = v.InferOutput<(typeof ARGS)[N]>;

/**
 * The SDK checks arguments against the zod schema it advertises, and answers a failure with its own
 * "Input validation error" and zod's text (not D8's message). So the zod schema given to it accepts
 * any object and only carries, as JSON Schema metadata, the valibot schema's JSON form (converted
 * as for /openapi.json); the valibot schema then checks the arguments inside the tool. Outputs are
 * advertised the same way, so that each shape is written once, in valibot.
 */
function advertised(schema: v.GenericSchema, typeMode: 'input' | 'output') {
  const { $schema: _, ...json } = toJsonSchema(schema, { typeMode, errorMode: 'ignore' });
  return z.looseObject({}).meta(json);
}

type Advertised = ReturnType<typeof advertised>;
const INPUT_SCHEMAS = Object.fromEntries(
  Object.entries(ARGS).map(([name, schema]) => [name, advertised(schema, 'input')]),
) as Record<ToolName, Advertised>;

// ---------------------------------------------------------------------------------------------
// Structured output (D8), in the shapes of the HTTP routes (src/views.ts; D7 for reports). Checked
// by `run` before it answers, since the SDK only sees the advertised form.

const OUTPUT = {
  list_accounts: v.strictObject({ accounts: v.array(Account) }),
  create_account: Account,
  get_settings: Settings,
  list_transactions: v.strictObject({ transactions: v.array(Transaction) }),
  delete_transaction: v.strictObject({ deleted: int }),
  record_transaction: CreatedTransaction,
  record_money_in: CreatedTransaction,
  record_money_out: CreatedTransaction,
  move_money: CreatedTransaction,
  get_report: v.strictObject({
    report: v.picklist(REPORTS),
    result: v.union([
      v.pipe(Balances, v.description('report "balances": every account with its balance as of as_of, and the total of each kind')),
      v.pipe(BalanceSheet, v.description('report "balance_sheet" as of as_of')),
      v.pipe(IncomeStatement, v.description('report "income_statement" from `from` to `to`')),
      v.pipe(Monthly, v.description('report "monthly": one row per month YYYY-MM, oldest first, months without transactions as zeros')),
    ]),
  }),
} satisfies Record<ToolName, v.GenericSchema>;

type OutputOf<N extends ToolName> = v.InferOutput<(typeof OUTPUT)[N]>;
const OUTPUT_SCHEMAS = Object.fromEntries(
  Object.entries(OUTPUT).map(([name, schema]) => [name, advertised(schema, 'output')]),
) as Record<ToolName, Advertised>;

// ---------------------------------------------------------------------------------------------
// Descriptions (D12: wording follows book_style; figures never change).

interface Words {
  kinds: Record<AccountKind, string>;
  moneyIn: string;
  moneyOut: string;
  move: string;
  balanceSheet: string;
  incomeStatement: string;
  /** Examples are wording too: where money in comes from, what money out pays for. */
  source: string;
  purpose: string;
}

/** D12: the one table of MCP description words, keyed by book_style (the web app keeps its own). */
const VOCABULARY: Record<BookStyle, Words> = {
  personal: {
    kinds: {
      asset: 'Accounts (money we have)',
      liability: 'What we owe',
      equity: 'Starting balances',
      income: 'Income',
      expense: 'Spending categories',
    },
    moneyIn: 'Money in',
    moneyOut: 'Money out',
    move: 'Move money',
    balanceSheet: 'What we have and owe',
    incomeStatement: 'Money in and out',
    source: 'a salary',
    purpose: 'groceries',
  },
  club: {
    kinds: {
      asset: 'Funds (bank, cash box)',
      liability: 'What the club owes',
      equity: 'Reserves',
      income: 'Receipts (dues, donations, events)',
      expense: 'Payments (venue, kit, events)',
    },
    moneyIn: 'Record a receipt',
    moneyOut: 'Record a payment',
    move: 'Transfer between funds',
    balanceSheet: 'Statement of funds',
    incomeStatement: 'Income and expenditure',
    source: 'membership dues',
    purpose: 'venue hire',
  },
};

/** Every tool description, built from the words of one book style only. */
function describeTools(w: Words): Record<ToolName, string> {
  const kinds = accountKind.enumValues.map((kind) => `${kind}: ${w.kinds[kind]}`).join('; ');
  const twoEntries = 'recorded as two entries: to_account_id +amount_cents, from_account_id -amount_cents';
  return {
    list_accounts: `List every account with its id, name and kind (${kinds}).`,
    create_account: `Create an account with a unique name (at most ${ACCOUNT_NAME_MAX} characters) and a kind (${kinds}).`,
    get_settings: 'Read the settings: book_style is "personal" (a household) or "club" (a club or association).',
    list_transactions:
      'List transactions, newest first, each with its entries (positive amounts go into an account, negative come ' +
      `out of it). Optional date bounds are inclusive; limit defaults to ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}.`,
    delete_transaction: 'Delete a transaction and its entries, by id.',
    record_transaction:
      'Record a transaction with two or more entries that sum to zero (positive = into an account, negative = out ' +
      'of it). occurred_on defaults to today.',
    record_money_in:
      `${w.moneyIn}: money arrives in an account (to_account_id, e.g. the bank) from a source (from_account_id, ` +
      `an income account such as ${w.source}); ${twoEntries}.`,
    record_money_out:
      `${w.moneyOut}: money leaves an account (from_account_id, e.g. the bank) for a purpose (to_account_id, ` +
      `an expense account such as ${w.purpose}); ${twoEntries}.`,
    move_money: `${w.move}: money moves from one account to another, e.g. from the bank to the cash box; ${twoEntries}.`,
    get_report:
      `Read a report, figures in cents: "balances" (every account as of as_of), "balance_sheet" (${w.balanceSheet} ` +
      `as of as_of), "income_statement" (${w.incomeStatement} between from and to) or "monthly" (income and expense ` +
      'totals per month between from and to). as_of defaults to today; from and to to the first and last transaction dates.',
  };
}

// ---------------------------------------------------------------------------------------------
// Running a tool.

export interface McpContext {
  db: Db;
  userId: number;
  /** Turns a database error into the message the HTTP API would give (400), or undefined for a fault. */
  explainDatabaseRefusal: (error: unknown) => string | undefined;
  /** Records an unexpected fault of `tool` and returns the only sentence the caller may see (error rule 3). */
  reportFault: (error: unknown, tool: string) => string;
}

/** Checks arguments with the tool's valibot schema; a failure is a refusal worded as the HTTP API's (D8). */
function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw invalid(describeIssues(result.issues));
  return result.output;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function success(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * D8: refusals (ours, the arguments', the database's balance trigger and constraints) are tool
 * results with isError and the HTTP API's message, never a protocol error. Anything else is a
 * fault: its text (maybe SQL or driver detail) goes to the log only, and the caller gets the
 * HTTP 500's fixed sentence (error rule 3).
 */
async function run(context: McpContext, tool: ToolName, body: () => Promise<Record<string, unknown>>) {
  try {
    const result = v.safeParse(OUTPUT[tool], await body());
    if (!result.success) throw new Error(`${tool} answered outside its output schema: ${describeIssues(result.issues)}`);
    return success(result.output);
  } catch (error) {
    const refusal = error instanceof Refusal ? error.message : context.explainDatabaseRefusal(error);
    return failure(refusal ?? context.reportFault(error, tool));
  }
}

/** D8: a new MCP server per request (stateless transport), with the tools in the instance's vocabulary. */
export async function createLedgerMcpServer(context: McpContext): Promise<McpServer> {
  const { db, userId } = context;
  const descriptions = describeTools(VOCABULARY[(await getSettings(db)).book_style]);
  const server = new McpServer({ name: 'ledger', version: '0.1.0' });

  const tool = <N extends ToolName>(name: N, body: (args: ArgsOf<N>) => Promise<OutputOf<N>>) => {
    // Typed without N: the SDK cannot resolve its callback's argument type on a generic index.
    const inputSchema: Advertised = INPUT_SCHEMAS[name];
    const outputSchema: Advertised = OUTPUT_SCHEMAS[name];
    server.registerTool(name, { description: descriptions[name], inputSchema, outputSchema }, (raw) =>
      run(context, name, () => body(parse(ARGS[name], raw))),
    );
  };

  /** Money in, money out and move alike: the money goes to `to` (+amount) from `from` (−amount) (D8, D13). */
  const recordTwoEntries = async (a: ArgsOf<'move_money'>) => ({
    id: await postTransaction(
      db,
      {
        occurred_on: a.occurred_on ?? today(),
        description: a.description,
        entries: [
          { account_id: a.to_account_id, amount_cents: a.amount_cents },
          { account_id: a.from_account_id, amount_cents: -a.amount_cents },
        ],
      },
      userId,
    ),
  });

  tool('list_accounts', async () => ({ accounts: await listAccounts(db) }));
  tool('create_account', (a) => createAccount(db, a));
  tool('get_settings', () => getSettings(db));
  tool('list_transactions', async ({ limit, ...range }) => ({
    transactions: await listTransactions(db, range, limit ?? LIST_LIMIT_DEFAULT),
  }));
  tool('delete_transaction', async ({ id }) => {
    await deleteTransaction(db, id);
    return { deleted: id };
  });
  tool('record_transaction', async (a) => ({
    id: await postTransaction(db, { ...a, occurred_on: a.occurred_on ?? today() }, userId),
  }));
  tool('record_money_in', recordTwoEntries);
  tool('record_money_out', recordTwoEntries);
  tool('move_money', recordTwoEntries);
  // `satisfies` ties the D7 output shapes above to what the report functions return.
  tool('get_report', async (a) => {
    switch (a.report) {
      case 'balances':
        return { report: a.report, result: (await balancesReport(db, a)) satisfies v.InferOutput<typeof Balances> };
      case 'balance_sheet':
        return { report: a.report, result: (await balanceSheetReport(db, a)) satisfies v.InferOutput<typeof BalanceSheet> };
      case 'income_statement':
        return { report: a.report, result: (await incomeStatementReport(db, a)) satisfies v.InferOutput<typeof IncomeStatement> };
      case 'monthly':
        return { report: a.report, result: (await monthlyReport(db, a)) satisfies v.InferOutput<typeof Monthly> };
    }
  });

  return server;
}
