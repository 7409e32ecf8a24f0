import type { BookStyle } from './api';
import { t } from './i18n';
import type { Problem } from './member-list';
import { formatCents, formatDate } from './money';

// D27 in D12's words (D29: every sentence from the catalogue): where a person stands, and what is
// wrong with a row of a pasted member list or a person's form.

/** "owes €15.00, since Mar 1, 2026" / "we owe them €20.00" (club: "the club owes them …") / "settled". */
export function standingInWords(style: BookStyle, balance: number, overdueSince: string | null): string {
  if (balance > 0 && overdueSince) return t('people.standing.owesSince', { amount: formatCents(balance), since: formatDate(overdueSince) });
  if (balance > 0) return t('people.standing.owes', { amount: formatCents(balance) });
  if (balance < 0) return t('people.standing.owed', { amount: formatCents(-balance), context: style });
  return t('people.standing.settled');
}

const DATE_COLUMNS = { mandate_date: 'people.problems.dates.mandate_date', joined_on: 'people.problems.dates.joined_on', left_on: 'people.problems.dates.left_on' } as const;

/** What is wrong, in words ("the IBAN's check digits are wrong"), without the row. */
export function problemInWords(problem: Problem): string {
  switch (problem.code) {
    case 'noName':
      return t('people.problems.noName');
    case 'badDate':
      return t('people.problems.badDate', { column: t(DATE_COLUMNS[problem.column]), value: problem.value });
    case 'leftBeforeJoined':
      return t('people.problems.leftBeforeJoined');
    case 'mandateWithoutDate':
      return t('people.problems.mandateWithoutDate');
    case 'dateWithoutMandate':
      return t('people.problems.dateWithoutMandate');
    case 'iban':
      return t(`people.problems.iban.${problem.reason}`, { value: problem.value });
    case 'sameName':
      return t('people.problems.sameName', { line: problem.line });
    case 'sameMemberNo':
      return t('people.problems.sameMemberNo', { line: problem.line });
  }
}

/** D27's words for an IBAN the API refuses (src/book/people.ts ibanProblem), as the app's own reasons. */
const IBAN_REFUSALS: Array<[RegExp, Extract<Problem, { code: 'iban' }>['reason']]> = [
  [/^iban does not start with a known country code/, 'country'],
  [/^iban has the wrong length/, 'length'],
  [/^iban has characters/, 'characters'],
  [/^iban's check digits are wrong/, 'checkDigits'],
  [/^iban must be an IBAN/, 'invalid'],
];

/**
 * D27's refusals of a person the app knows, in the person's language (D29); any other is shown as
 * the API sent it (the API names the field first: "member_no 7 is taken by Anna Schmidt").
 */
export function personRefusalInWords(message: string, iban = ''): string {
  let m: RegExpExecArray | null;
  if ((m = /^member_no (.+) is taken by (.+)$/.exec(message))) return t('people.problems.memberNoTakenBy', { number: m[1], name: m[2] });
  if (/^member_no is taken/.test(message)) return t('people.problems.memberNoTaken');
  if ((m = /^name: an account named (.+) exists already/.exec(message))) return t('people.problems.nameTaken', { name: m[1] });
  if (/^name: an account with that name exists already/.test(message)) return t('people.problems.nameTakenAny');
  for (const [pattern, reason] of IBAN_REFUSALS) if (pattern.test(message)) return problemInWords({ code: 'iban', reason, value: iban });
  if (/^left_on must not be before joined_on/.test(message)) return t('people.problems.leftBeforeJoined');
  if (/^email must be an email address/.test(message)) return t('people.problems.email');
  if (/^mandate\.id must be/.test(message)) return t('people.problems.mandateId');
  return message;
}
