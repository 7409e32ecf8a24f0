import { ACCOUNT_NAME_MAX } from '../book/accounts';
import { accountKind } from '../db/schema';
import type { Words } from '../book/vocabulary';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, type ToolName } from './arguments';

// The tools' descriptions, in the words of the instance's book style (D12, src/book/vocabulary.ts).

/** Every tool description, built from the words of one book style only. */
export function describeTools(w: Words): Record<ToolName, string> {
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
  };
}
