import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import { z } from 'zod';
import { createAccount, listAccounts, NewAccountSchema } from './accounts';
import type { Db } from './db/database';
import type { BookStyle } from './db/schema';
import { Refusal } from './errors';
import {
  AsOfSchema,
  balanceSheetReport,
  balancesReport,
  incomeStatementReport,
  monthlyReport,
  PeriodSchema,
} from './reports';
import { getSettings } from './settings';
import { describeIssues } from './text';
import {
  deleteTransaction,
  listTransactions,
  NewTransactionSchema,
  postTransaction,
  TransactionRangeSchema,
} from './transactions';

/** D12: the words of MCP tool descriptions, keyed by book_style (figures never change). */
const VOCABULARY: Record<BookStyle, Record<'assets' | 'income' | 'expenses' | 'moneyIn' | 'moneyOut' | 'move', string>> = {
  personal: {
    assets: 'Accounts (money we have)',
    income: 'Income',
    expenses: 'Spending categories',
    moneyIn: 'Money in',
    moneyOut: 'Money out',
    move: 'Move money',
  },
  club: {
    assets: 'Funds (bank, cash box)',
    income: 'Receipts (dues, donations, events)',
    expenses: 'Payments (venue, kit, events)',
    moneyIn: 'Record a receipt',
    moneyOut: 'Record a payment',
    move: 'Transfer between funds',
  },
};

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

/** A refusal the HTTP API would give, as a tool error with the same message (D8). */
class ToolRefusal extends Error {}

/** Validates with the same valibot schema as the HTTP route, so that messages are the same (D8). */
function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw new ToolRefusal(describeIssues(result.issues));
  return result.output;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function ok(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * Runs a tool body: our refusals and the database's (the balance trigger, an unknown account) are
 * tool results with `isError: true`, never a protocol error. The HTTP error mapper decides which
 * database errors are the caller's, so the two surfaces answer alike.
 */
async function run(body: () => Promise<Record<string, unknown>>, explain: (error: unknown) => string | undefined) {
  try {
    return ok(await body());
  } catch (error) {
    const message =
      error instanceof ToolRefusal || error instanceof Refusal ? error.message : explain(error);
    if (message === undefined) throw error;
    return { content: [{ type: 'text' as const, text: message }], isError: true };
  }
}

const dateArg = z.string().describe('a date, YYYY-MM-DD');
const amountArg = z.number().int().positive().describe('the amount in cents, a whole number above 0 (12.50 is 1250)');

const accountShape = z.object({ id: z.number().int(), name: z.string(), kind: z.string() });
const transactionShape = z.object({
  id: z.number().int(),
  occurred_on: z.string(),
  description: z.string(),
  created_by_email: z.string().nullable(),
  entries: z.array(z.object({ account_id: z.number().int(), account_name: z.string(), amount_cents: z.number().int() })),
});

export interface McpContext {
  db: Db;
  userId: number;
  /** Turns a database error into the message the HTTP API would give (400), or undefined for a fault. */
  explainDatabaseRefusal: (error: unknown) => string | undefined;
}

/** D8: a new MCP server per request (stateless transport), with the tools in the instance's vocabulary. */
export async function createLedgerMcpServer(context: McpContext): Promise<McpServer> {
  const { db, userId } = context;
  const words = VOCABULARY[(await getSettings(db)).book_style];
  const server = new McpServer({ name: 'ledger', version: '0.1.0' });
  const tool = (body: () => Promise<Record<string, unknown>>) => run(body, context.explainDatabaseRefusal);

  const record = async (input: unknown) => {
    const id = await postTransaction(db, parse(NewTransactionSchema, input), userId);
    return { id };
  };
  const twoEntries = (description: string, occurredOn: string | undefined, debit: number, credit: number, amount: number) => ({
    occurred_on: occurredOn ?? today(),
    description,
    entries: [
      { account_id: debit, amount_cents: amount },
      { account_id: credit, amount_cents: -amount },
    ],
  });

  server.registerTool(
    'list_accounts',
    {
      description: `List every account with its id, name and kind. Kinds: asset (${words.assets}), liability, equity, income (${words.income}), expense (${words.expenses}).`,
      inputSchema: {},
      outputSchema: { accounts: z.array(accountShape) },
    },
    () => tool(async () => ({ accounts: await listAccounts(db) })),
  );

  server.registerTool(
    'create_account',
    {
      description: `Create an account. kind is one of asset (${words.assets}), liability, equity, income (${words.income}) or expense (${words.expenses}).`,
      inputSchema: { name: z.string().describe('a unique name, at most 100 characters'), kind: z.string().describe('asset, liability, equity, income or expense') },
      outputSchema: accountShape.shape,
    },
    (args) => tool(async () => createAccount(db, parse(NewAccountSchema, args))),
  );

  server.registerTool(
    'get_settings',
    {
      description: 'Read the settings: book_style is "personal" (a household) or "club" (a club or association).',
      inputSchema: {},
      outputSchema: { book_style: z.string() },
    },
    () => tool(async () => getSettings(db)),
  );

  server.registerTool(
    'list_transactions',
    {
      description: `List transactions, newest first, each with its entries (positive amounts go into an account, negative come out of it). Optional date bounds are inclusive; limit defaults to ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}.`,
      inputSchema: {
        from: dateArg.optional(),
        to: dateArg.optional(),
        limit: z.number().int().min(1).max(LIST_LIMIT_MAX).optional(),
      },
      outputSchema: { transactions: z.array(transactionShape) },
    },
    ({ limit, ...range }) =>
      tool(async () => ({
        transactions: await listTransactions(db, parse(TransactionRangeSchema, range), limit ?? LIST_LIMIT_DEFAULT),
      })),
  );

  server.registerTool(
    'delete_transaction',
    {
      description: 'Delete a transaction and its entries, by id.',
      inputSchema: { id: z.number().int().positive() },
      outputSchema: { deleted: z.number().int() },
    },
    ({ id }) =>
      tool(async () => {
        await deleteTransaction(db, id);
        return { deleted: id };
      }),
  );

  server.registerTool(
    'record_transaction',
    {
      description:
        'Record a transaction with two or more entries that sum to zero (positive = into an account, negative = out of it). occurred_on defaults to today.',
      inputSchema: {
        occurred_on: dateArg.optional(),
        description: z.string(),
        entries: z.array(z.object({ account_id: z.number().int(), amount_cents: z.number().int() })),
      },
      outputSchema: { id: z.number().int() },
    },
    ({ occurred_on, ...rest }) => tool(() => record({ occurred_on: occurred_on ?? today(), ...rest })),
  );

  const simpleArgs = {
    amount_cents: amountArg,
    occurred_on: dateArg.optional(),
    description: z.string(),
  };

  server.registerTool(
    'record_money_in',
    {
      description: `${words.moneyIn}: money arrives in an account (to_account_id, e.g. the bank) from a source (from_account_id, e.g. an income account such as salary or dues).`,
      inputSchema: { to_account_id: z.number().int(), from_account_id: z.number().int(), ...simpleArgs },
      outputSchema: { id: z.number().int() },
    },
    (a) => tool(() => record(twoEntries(a.description, a.occurred_on, a.to_account_id, a.from_account_id, a.amount_cents))),
  );

  server.registerTool(
    'record_money_out',
    {
      description: `${words.moneyOut}: money leaves an account (from_account_id, e.g. the bank) for a purpose (to_account_id, e.g. an expense account such as groceries or venue hire).`,
      inputSchema: { from_account_id: z.number().int(), to_account_id: z.number().int(), ...simpleArgs },
      outputSchema: { id: z.number().int() },
    },
    (a) => tool(() => record(twoEntries(a.description, a.occurred_on, a.to_account_id, a.from_account_id, a.amount_cents))),
  );

  server.registerTool(
    'move_money',
    {
      description: `${words.move}: money moves from one account (from_account_id) to another (to_account_id), e.g. from the bank to the cash box.`,
      inputSchema: { from_account_id: z.number().int(), to_account_id: z.number().int(), ...simpleArgs },
      outputSchema: { id: z.number().int() },
    },
    (a) => tool(() => record(twoEntries(a.description, a.occurred_on, a.to_account_id, a.from_account_id, a.amount_cents))),
  );

  server.registerTool(
    'get_report',
    {
      description:
        'Read a report: "balances" (every account as of a date), "balance_sheet" (what we have and owe), "income_statement" (money in and out over a period) or "monthly" (income and spending per month). Figures are in cents.',
      inputSchema: {
        report: z.enum(['balances', 'balance_sheet', 'income_statement', 'monthly']),
        as_of: dateArg.optional(),
        from: dateArg.optional(),
        to: dateArg.optional(),
      },
      outputSchema: { report: z.string(), result: z.unknown() },
    },
    ({ report, as_of, from, to }) =>
      tool(async () => {
        switch (report) {
          case 'balances':
            return { report, result: await balancesReport(db, parse(AsOfSchema, { as_of })) };
          case 'balance_sheet':
            return { report, result: await balanceSheetReport(db, parse(AsOfSchema, { as_of })) };
          case 'income_statement':
            return { report, result: await incomeStatementReport(db, parse(PeriodSchema, { from, to })) };
          case 'monthly':
            return { report, result: await monthlyReport(db, parse(PeriodSchema, { from, to })) };
        }
      }),
  );

  return server;
}
