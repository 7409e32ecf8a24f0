import { McpServer, type CallToolResult, type StandardSchemaWithJSON, type ToolAnnotations } from '@modelcontextprotocol/server';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { createAccount, listAccounts } from '../book/accounts';
import { balanceSheetReport, balancesReport, incomeStatementReport, monthlyReport } from '../book/reports';
import { getSettings } from '../book/settings';
import { updateAccount } from '../book/accounts';
import { listChanges } from '../book/changes';
import { deleteTransaction, getTransaction, restoreTransaction, updateTransaction } from '../book/corrections';
import { searchTransactionsJson } from '../book/search';
import { listTransactions, postTransaction, type TransactionView } from '../book/transactions';
import {
  Account,
  Attachment,
  Balances,
  BalanceSheet,
  Budget,
  BudgetReport,
  ChangePage,
  CreatedTransaction,
  DueOccurrence,
  ImportPreview,
  ImportResult,
  IncomeStatement,
  int,
  ListedTransaction,
  Monthly,
  Person,
  PersonStatement,
  Reconciliation,
  ReconciliationStatus,
  Schedule,
  Settings,
  Transaction,
  WhoOwes,
} from '../book/views';
import { listAttachments } from '../book/attachments';
import { budgetReport } from '../book/budget-report';
import { createBudget, listBudgets } from '../book/budgets';
import { createPerson, listPeople } from '../book/people';
import { whoOwes } from '../book/people-report';
import { personStatement } from '../book/statement';
import { importStatement, previewImport } from '../book/imports/booking';
import { reconcileAccount, reconciliationStatus } from '../book/reconciliation';
import { createScheduleAndPostDue } from '../book/schedule-posting';
import { listDue, listSchedules, postOccurrence } from '../book/schedules';
import type { Author } from '../book/changes';
import type { Db } from '../db/database';
import { databaseRefusal } from '../db/refusals';
import { invalid, Refusal } from '../errors';
import { describeIssues, todayUtc } from '../text';
import { twoEntries } from '../book/rules';
import { ARGS, LIST_LIMIT_DEFAULT, REPORTS, unknownArgument, type ArgsOf, type ToolName } from './arguments';
import { describeTools } from './vocabulary';

type JsonSchema = Record<string, unknown>;
type Arguments = Record<string, unknown>;

/** A schema's JSON form, converted as for /openapi.json; an input names every argument there is (D18). */
function jsonSchemaOf(schema: v.GenericSchema, typeMode: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...json } = toJsonSchema(schema, { typeMode, errorMode: 'ignore' });
  return typeMode === 'input' ? { ...json, additionalProperties: false } : json;
}

/**
 * D24: the one adapter between our schemas and the SDK, which takes Standard Schemas. The SDK
 * checks arguments against the schema it is given and answers a failure with its own "Input
 * validation error" (not D8's message), so what it is given accepts any value and only carries,
 * as its JSON Schema, the valibot schema's JSON form; the valibot schema then checks the
 * arguments inside the tool (`parse`), and the output before it answers (`run`). Each shape is
 * written once, in valibot, and every protocol revision lists the same JSON.
 */
function advertised(json: JsonSchema): StandardSchemaWithJSON<Arguments> {
  return {
    '~standard': {
      version: 1,
      vendor: 'ledger',
      validate: (value) => ({ value: value as Arguments }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

const INPUT_SCHEMAS = Object.fromEntries(
  Object.entries(ARGS).map(([name, schema]) => [name, jsonSchemaOf(schema, 'input')]),
) as Record<ToolName, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// Structured output (D8), in the shapes of the HTTP routes (src/book/views.ts; D7 for reports). Checked
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
  get_transaction: Transaction,
  update_transaction: Transaction,
  restore_transaction: Transaction,
  rename_account: Account,
  list_changes: ChangePage,
  search_transactions: v.strictObject({ transactions: v.array(ListedTransaction) }),
  // D24: what the HTTP twin answers; a list (a JSON array there) is the one field of an object here.
  get_reconciliation: ReconciliationStatus,
  reconcile_account: Reconciliation,
  list_schedules: v.strictObject({ schedules: v.pipe(v.array(Schedule), v.description('by next_on (none left last), then id')) }),
  create_schedule: Schedule,
  list_due: v.strictObject({ due: v.pipe(v.array(DueOccurrence), v.description('oldest first')) }),
  post_due: Transaction,
  list_attachments: v.strictObject({ attachments: v.pipe(v.array(Attachment), v.description('oldest first; metadata only, never the bytes')) }),
  preview_statement: ImportPreview,
  import_statement: ImportResult,
  list_budgets: v.strictObject({ budgets: v.pipe(v.array(Budget), v.description('by from, then id')) }),
  get_budget_report: BudgetReport,
  create_budget: Budget,
  list_people: v.strictObject({ people: v.pipe(v.array(Person), v.description('by name')) }),
  get_person_statement: PersonStatement,
  who_owes: WhoOwes,
  create_person: Person,
} satisfies Record<ToolName, v.GenericSchema>;

type OutputOf<N extends ToolName> = v.InferOutput<(typeof OUTPUT)[N]>;
const OUTPUT_SCHEMAS = Object.fromEntries(
  Object.entries(OUTPUT).map(([name, schema]) => [name, jsonSchemaOf(schema, 'output')]),
) as Record<ToolName, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// Running a tool.

export interface McpContext {
  db: Db;
  /** Who the tools act as: the caller, for authorship and the change log (D15). */
  author: Author;
  /** Records an unexpected fault of `tool` and returns the only sentence the caller may see (error rule 3). */
  reportFault: (error: unknown, tool: string) => string;
}

/**
 * Checks arguments with the tool's valibot schema; a failure is a refusal worded as the HTTP API's
 * (D8), and an argument the tool does not take is refused by name (D18).
 */
function parse<N extends ToolName>(tool: N, input: unknown): ArgsOf<N> {
  const unknown = unknownArgument(tool, input);
  if (unknown !== undefined) throw invalid(`${tool} takes no argument ${JSON.stringify(unknown)}`);
  const result = v.safeParse(ARGS[tool], input);
  if (!result.success) throw invalid(describeIssues(result.issues));
  return result.output;
}

function success(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * The route's message first; what the HTTP answer carries beside `error` (D16's line `errors` and
 * date `candidates`, D20's `difference_cents`) follows as its JSON body, so that an assistant can
 * say which line is at fault.
 */
function failure(message: string, refusal?: Refusal): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: message }];
  const details = refusal && { ...(refusal.errors && { errors: refusal.errors }), ...(refusal.candidates && { candidates: refusal.candidates }), ...refusal.figures };
  if (details && Object.keys(details).length > 0) content.push({ type: 'text', text: JSON.stringify({ error: message, ...details }) });
  return { content, isError: true };
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
    if (error instanceof Refusal) return failure(error.message, error);
    return failure(databaseRefusal(error)?.message ?? context.reportFault(error, tool));
  }
}

/** D18: what a client may assume of each tool. */
const READ = { readOnlyHint: true, idempotentHint: true } as const;
const ANNOTATIONS: Record<ToolName, ToolAnnotations> = {
  list_accounts: READ,
  get_settings: READ,
  list_transactions: READ,
  get_report: READ,
  get_transaction: READ,
  list_changes: READ,
  search_transactions: READ,
  create_account: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  record_transaction: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  record_money_in: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  record_money_out: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  move_money: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  // Replacing with the same values again changes nothing more.
  update_transaction: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  rename_account: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  restore_transaction: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  delete_transaction: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  get_reconciliation: READ,
  list_schedules: READ,
  list_due: READ,
  list_attachments: READ,
  // A preview writes nothing (D16).
  preview_statement: READ,
  // Each call marks entries and writes a reconciliation; a second one would add another.
  reconcile_account: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  create_schedule: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  // An occurrence is posted at most once (D21): a second call is refused and changes nothing.
  post_due: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  // Importing the same file twice creates nothing the second time (D16).
  import_statement: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  list_budgets: READ,
  get_budget_report: READ,
  create_budget: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  list_people: READ,
  get_person_statement: READ,
  who_owes: READ,
  create_person: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
};

/**
 * D8, D24: a new MCP server per request (stateless), the same on every protocol revision, with the
 * tools in the instance's vocabulary. D18: the tools never change while a client is connected, so
 * the server does not claim `listChanged`.
 */
export async function createLedgerMcpServer(context: McpContext): Promise<McpServer> {
  const { db, author } = context;
  const words = describeTools((await getSettings(db)).book_style);
  const server = new McpServer({ name: 'ledger', version: '0.1.0' }, { capabilities: { tools: { listChanged: false } } });

  const tool = <N extends ToolName>(name: N, body: (args: ArgsOf<N>) => Promise<OutputOf<N>>) => {
    const { title, description } = words[name];
    server.registerTool(
      name,
      { title, description, inputSchema: advertised(INPUT_SCHEMAS[name]), outputSchema: advertised(OUTPUT_SCHEMAS[name]), annotations: ANNOTATIONS[name] },
      (raw: Arguments) => run(context, name, () => body(parse(name, raw))),
    );
  };

  /** Money in, money out and move alike: the money goes to `to` (+amount) from `from` (−amount) (D8, D13). */
  const recordTwoEntries = async (a: ArgsOf<'move_money'>) => ({
    id: await postTransaction(
      db,
      {
        occurred_on: a.occurred_on ?? todayUtc(),
        description: a.description,
        entries: twoEntries(a),
      },
      author,
    ),
  });

  tool('list_accounts', async () => ({ accounts: await listAccounts(db) }));
  tool('create_account', (a) => createAccount(db, a, author));
  tool('get_settings', () => getSettings(db));
  tool('list_transactions', async ({ limit, ...range }) => ({
    transactions: await listTransactions(db, range, limit ?? LIST_LIMIT_DEFAULT),
  }));
  tool('delete_transaction', async ({ id }) => {
    await deleteTransaction(db, id, author);
    return { deleted: id };
  });
  tool('record_transaction', async (a) => ({
    id: await postTransaction(db, { ...a, occurred_on: a.occurred_on ?? todayUtc() }, author),
  }));
  tool('record_money_in', recordTwoEntries);
  tool('record_money_out', recordTwoEntries);
  tool('move_money', recordTwoEntries);
  tool('get_report', async (a) => {
    switch (a.report) {
      case 'balances':
        return { report: a.report, result: await balancesReport(db, a) };
      case 'balance_sheet':
        return { report: a.report, result: await balanceSheetReport(db, a) };
      case 'income_statement':
        return { report: a.report, result: await incomeStatementReport(db, a) };
      case 'monthly':
        return { report: a.report, result: await monthlyReport(db, a) };
    }
  });
  tool('get_transaction', ({ id }) => getTransaction(db, id));
  tool('update_transaction', ({ id, ...input }) => updateTransaction(db, id, input, author));
  tool('restore_transaction', ({ id }) => restoreTransaction(db, id, author));
  tool('rename_account', ({ id, name }) => updateAccount(db, id, { name }, author));
  tool('list_changes', (query) => listChanges(db, query));
  tool('search_transactions', async (query) => ({
    transactions: JSON.parse((await searchTransactionsJson(db, { ...query, limit: query.limit ?? LIST_LIMIT_DEFAULT })).list) as TransactionView[],
  }));
  tool('get_reconciliation', ({ account_id, as_of }) => reconciliationStatus(db, account_id, as_of));
  tool('reconcile_account', ({ account_id, ...statement }) => reconcileAccount(db, account_id, statement, author));
  tool('list_schedules', async () => ({ schedules: await listSchedules(db) }));
  // As POST /schedules: what is due already is posted at once (issue 37 item 4).
  tool('create_schedule', (a) => createScheduleAndPostDue(db, a, author));
  tool('list_due', async ({ through }) => ({ due: await listDue(db, through ?? todayUtc()) }));
  tool('post_due', ({ schedule_id, occurs_on }) => postOccurrence(db, schedule_id, occurs_on, {}, author));
  tool('list_attachments', async ({ transaction_id }) => ({ attachments: await listAttachments(db, transaction_id) }));
  tool('preview_statement', (request) => previewImport(db, request));
  tool('import_statement', (request) => importStatement(db, request, author));
  tool('list_budgets', async () => ({ budgets: await listBudgets(db) }));
  tool('get_budget_report', ({ budget_id, as_of }) => budgetReport(db, { id: budget_id, as_of }));
  tool('create_budget', (input) => createBudget(db, input, author));
  tool('list_people', async ({ q }) => ({ people: await listPeople(db, { q }) }));
  tool('get_person_statement', ({ person_id, ...period }) => personStatement(db, person_id, period));
  tool('who_owes', (query) => whoOwes(db, query));
  tool('create_person', (input) => createPerson(db, input, author));
  return server;
}
