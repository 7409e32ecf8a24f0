import { ACCOUNT_NAME_MAX } from '../book/accounts';
import { BUDGET_MONTHS_MAX } from '../book/budgets';
import { accountKind } from '../db/schema';
import type { BookStyle } from '../book/rules';
import { VOCABULARY, type Words } from '../book/vocabulary';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, type ToolName } from './arguments';

// The tools' titles and descriptions, in the words of the instance's book style (D12, src/book/vocabulary.ts).

/**
 * D26, D12: what a budget is called; MCP stays English ("Haushaltsplan" is the web app's German, D29).
 * Kept here until the web app's table (src/book/vocabulary.ts) carries the word.
 */
const BUDGET_WORDS: Record<BookStyle, { budget: string; budgets: string; spend: string }> = {
  personal: { budget: 'budget', budgets: 'budgets', spend: 'spend' },
  club: { budget: 'plan', budgets: 'plans', spend: 'pay out' },
};

/** D27, D12: the people money is owed by or to: a club's members, a household's people. */
const PEOPLE_WORDS: Record<BookStyle, { person: string; people: string }> = {
  personal: { person: 'person', people: 'people' },
  club: { person: 'member', people: 'members' },
};

type ToolWords = Words & { plan: (typeof BUDGET_WORDS)[BookStyle]; who: (typeof PEOPLE_WORDS)[BookStyle] };

/** Every tool's title (a name for people, from MCP 2025-06-18 on) and description, from the words of one book style only. */
export function describeTools(style: BookStyle): Record<ToolName, { title: string; description: string }> {
  const w: ToolWords = { ...VOCABULARY[style], plan: BUDGET_WORDS[style], who: PEOPLE_WORDS[style] };
  const titles = titleTools(w);
  const descriptions = toolDescriptions(w);
  return Object.fromEntries(
    Object.entries(titles).map(([name, title]) => [name, { title, description: descriptions[name as ToolName] }]),
  ) as Record<ToolName, { title: string; description: string }>;
}

function titleTools(w: ToolWords): Record<ToolName, string> {
  return {
    list_accounts: 'List accounts',
    create_account: 'Create an account',
    get_settings: 'Read the settings',
    list_transactions: 'List transactions',
    delete_transaction: 'Delete a transaction',
    record_transaction: 'Record a transaction',
    record_money_in: w.moneyIn,
    record_money_out: w.moneyOut,
    move_money: w.move,
    get_report: 'Read a report',
    get_transaction: 'Read a transaction',
    update_transaction: 'Correct a transaction',
    restore_transaction: 'Restore a deleted transaction',
    rename_account: 'Rename an account',
    list_changes: 'Read the history',
    search_transactions: 'Find transactions',
    get_reconciliation: 'Where an account stands against its statements',
    reconcile_account: 'Reconcile an account with a statement',
    list_schedules: 'List schedules',
    create_schedule: 'Create a schedule',
    list_due: 'List what is due',
    post_due: 'Record a due occurrence',
    list_attachments: "List a transaction's files",
    preview_statement: 'Preview a bank statement',
    import_statement: 'Import a bank statement',
    list_budgets: `List ${w.plan.budgets}`,
    get_budget_report: `Compare a ${w.plan.budget} with what happened`,
    create_budget: `Create a ${w.plan.budget}`,
    list_people: `List ${w.who.people}`,
    get_person_statement: `Read a ${w.who.person}'s statement of account`,
    who_owes: 'Who owes, and since when',
    create_person: `Add a ${w.who.person}`,
  };
}

function toolDescriptions(w: ToolWords): Record<ToolName, string> {
  const kinds = accountKind.enumValues.map((kind) => `${kind}: ${w.kinds[kind]}`).join('; ');
  const twoEntries = 'recorded as two entries: to_account_id +amount_cents, from_account_id -amount_cents';
  /** What a statement is for: an asset account (the bank, the cash box) or a liability (a card). */
  const statementAccount = `an account of kind asset (${w.kinds.asset}) or liability (${w.kinds.liability})`;
  const naturalSign = "cents in the account's natural sign (money in an asset account positive, a card's debt positive)";
  const comesBack = `what comes back every week, month or year (${w.happened.in.toLowerCase()} such as ${w.source}, ${w.happened.out.toLowerCase()} such as ${w.purpose})`;
  const statementFile =
    'format is camt053 (ISO 20022 camt.053 XML), ofx (OFX or QFX) or csv (then csv names the columns, date format and ' +
    'decimal mark); content is the file\'s text; account_id is the account the statement is for and unmatched_account_id ' +
    'the counter account of lines no import rule matches';
  /** A budget line's account (D26). */
  const budgetAccount = `income (${w.kinds.income}) or expense (${w.kinds.expense}) account`;
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
    get_transaction: 'Read one transaction with its entries, by id.',
    update_transaction:
      'Correct a transaction: its date, description and every entry are replaced by the ones given (two or more, ' +
      'summing to zero); the id and the author stay. The change is kept in the history.',
    restore_transaction: 'Undo the delete of a transaction: it comes back with its id, date, description, author and entries.',
    rename_account: 'Rename an account (a unique name, at most ' + ACCOUNT_NAME_MAX + ' characters).',
    list_changes:
      'Read the history of the book, newest first: who changed what, when, and through which app, with the ' +
      'transaction, account or settings before and after. Narrow it to one subject (and subject_id); page with ' +
      'before = next_before.',
    search_transactions:
      'Find transactions by words in their description (any case) or by an account they touch, between optional ' +
      `dates; newest first, at most limit (default ${LIST_LIMIT_DEFAULT}).`,
    get_reconciliation:
      `Read how ${statementAccount} stands against its bank statements: the last reconciliation, the reconciled ` +
      `balance, the book balance as of as_of (default today) and every transaction not reconciled yet, oldest first; ${naturalSign}.`,
    reconcile_account:
      'Reconcile an account with a bank statement: the entries reconciled before plus those of transaction_ids (left out: ' +
      'every unreconciled one dated on or before statement_date) must come to statement_balance_cents, the statement\'s ' +
      `closing balance in ${naturalSign}; then they are all reconciled at once and can no longer be changed or deleted. ` +
      'When they do not agree nothing changes and the refusal says both figures and difference_cents.',
    list_schedules: `List the schedules: ${comesBack}, soonest next_on first, each with its entries.`,
    create_schedule:
      `Create a schedule for ${comesBack}: entries as for record_transaction (summing to zero), the first date start_on, ` +
      'then every interval (default 1) weeks, months or years until until_on (a month keeps start_on\'s day, or the ' +
      'month\'s last). mode "post" records each occurrence by itself on its date; "remind" lists it in list_due for a person to post.',
    list_due:
      'List the occurrences of schedules waiting for a decision through the date through (default today): "remind" ' +
      'ones not yet posted or skipped, and "post" ones that could not be posted (blocked says why: a closed period, a deleted account).',
    post_due: 'Record one occurrence of a schedule now (schedule_id and occurs_on from list_due), as the schedule says; it answers the transaction.',
    list_attachments:
      'List the files kept with a transaction (photos or PDFs of receipts and invoices): name, type, size and sha256, ' +
      'oldest first. The files themselves are not sent.',
    preview_statement:
      `Read a bank statement file without writing anything: ${statementFile}. Each line shows its date, description, amount ` +
      '(money into the account positive), counter account, duplicate_of (already imported) and match_of (a transaction typed by ' +
      'hand that the line is; link it with import_statement\'s matches) and reconciled_period (dated in a period already ' +
      'reconciled: importing it changes a reconciled balance, so ask first); the statement\'s opening and closing balances, the ' +
      'book\'s balance on the closing date after the import (book_closing_cents) and whether they agree.',
    import_statement:
      `Import a bank statement: the same arguments as preview_statement, and matches [{line, transaction_id}] pairing lines ` +
      'with their match_of from the preview: those lines create nothing but are linked to the transaction typed by hand. ' +
      'Every other new line becomes a transaction; duplicates are left out. A line at fault refuses the whole file and nothing is written.',
    list_budgets:
      `List the ${w.plan.budgets}, by from then id: each with its id, name, months from and to (YYYY-MM) and lines, each line an ` +
      `${budgetAccount} with amount_cents planned per month (every month) or per period (once), and rollover.`,
    get_budget_report:
      `Read a ${w.plan.budget} (budget_id from list_budgets) beside what happened, in cents in natural sign (what came in and what ` +
      `went out both positive): per line planned_cents and actual_cents for all its months, planned_to_date_cents and ` +
      'actual_to_date_cents through as_of (default today), and one row per month (available_cents: what a rollover line has ' +
      `left); unbudgeted lists ${w.kinds.income.toLowerCase()} and ${w.kinds.expense.toLowerCase()} accounts with money but no ` +
      'line; totals for income, expense and result (income minus expense).',
    create_budget:
      `Create a ${w.plan.budget}: a unique name, from and to as months YYYY-MM (at most ${BUDGET_MONTHS_MAX} months), and lines ` +
      `[{account_id, amount_cents, per, rollover?}] in the order to show them, each naming an ${budgetAccount} at most once. ` +
      `amount_cents is what we plan to earn or ${w.plan.spend}, in cents (0 or more); per "month" plans it for every month, ` +
      `"period" once for the whole ${w.plan.budget}; rollover (only with month) carries what a month leaves over, or overruns, into the next.`,
    list_people:
      `List the ${w.who.people} (money is owed by or to each), by name: id, name, email, iban, member_no, joined_on, left_on, ` +
      `mandate, dues_plan_id, note, their own account_id and balance_cents (above zero the ${w.who.person} owes the book, below ` +
      'zero the book owes them). q finds by words of the name, email or member number, ignoring case and accents.',
    get_person_statement:
      `Read a ${w.who.person}'s statement of account (person_id from list_people) between from and to (default the first and ` +
      'last transaction dates): the opening balance, each line oldest first with its amount (a charge positive, a payment ' +
      'negative) and the running balance, and the closing balance, in cents.',
    who_owes:
      `Who owes, and since when: every ${w.who.person} whose balance as of as_of (default today) is not zero, by name, with ` +
      'balance_cents, overdue_cents (what they owe) and overdue_since (the date of the oldest charge not yet paid: payments ' +
      'settle the oldest charges first); owed_to_book_cents and owed_by_book_cents total what is owed either way.',
    create_person:
      `Add a ${w.who.person} with their own account (named as them, so no account may have that name yet): name, and optionally ` +
      `email, iban (checked), member_no (1–35 characters, unique), joined_on, left_on (not before joined_on), mandate ` +
      "{id, signed_on} (a SEPA mandate reference), dues_plan_id and note. What their dues plan has due is charged at once.",
  };
}
