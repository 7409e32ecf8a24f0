import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import * as v from 'valibot';
import { sqlConstraint, type Db } from '../db/database';
import { accountDayTotals, accounts, directDebitItems, duesPlans, entries, people } from '../db/schema';
import { conflict, invalid, notFound, Refusal } from '../errors';
import { requestSchema } from '../shapes';
import { dateString, hasControlCharacters, hasDisplayControlCharacters, requiredText, storedText, todayUtc } from '../text';
import { ACCOUNT_NAME_MAX } from './accounts';
import { recordChange, type Actor } from './changes';
import { holdOffCompaction } from './day-totals';
import { postDuesFor } from './dues-posting';
import { exactCents } from './reports';
import { foldForSearch } from './search';
import type { Person as PersonShape, PersonRecord as PersonRecordShape } from './views';

// D27: people, someone money is owed by or to (a club's member, a family member). Each person has
// their own asset account, named as the person, created, renamed and deleted with them in the same
// database transaction; that account cannot be renamed, re-kinded or deleted otherwise
// (src/book/accounts.ts answers 409 naming the person). Email, IBAN, mandate and note are personal
// data: no change record ever holds them, and `forget` clears them while the name stays.

export type Person = v.InferOutput<typeof PersonShape>;
export type PersonRecord = v.InferOutput<typeof PersonRecordShape>;

export const NO_SUCH_PERSON = 'no such person';
export const MEMBER_NO_MAX = 35;
export const EMAIL_MAX = 254;
export const NOTE_MAX = 2000;
/** A member list pasted at once: far more than a club has members, far less than a body holds. */
export const BATCH_MAX = 5000;

/** D27: a mandate reference, SEPA's characters (no space), 1–35 of them. */
const MANDATE_ID = /^[A-Za-z0-9+?/\-:().,']{1,35}$/;

/** An optional field: absent, null or blank text are all "none" (a pasted spreadsheet's empty cell). */
function optionalField<S extends v.GenericSchema<string, unknown>>(schema: S) {
  return v.optional(v.pipe(
    v.unknown(),
    v.transform((x) => (typeof x === 'string' && x.trim() === '' ? null : x)),
    v.nullable(schema),
  ));
}

/** One line of optional text: control characters and display controls refused (as requiredText). */
function optionalText(field: string, max: number, multiline = false) {
  return optionalField(v.pipe(
    v.string(`${field} must be text`),
    v.trim(),
    v.check((s) => s.isWellFormed(), `${field} is not valid Unicode text`),
    v.check((s) => !hasControlCharacters(multiline ? s.replace(/[\n\t]/g, '') : s), `${field} must not contain control characters`),
    v.check((s) => !hasDisplayControlCharacters(s), `${field} must not contain text-direction control characters or line separators`),
    v.transform(storedText),
    v.check((s) => [...s].length <= max, `${field} has at most ${max} characters`),
  ));
}

/** Why ibantools refuses an IBAN, in words naming the field (country length and ISO 13616 mod-97 only, D27). */
export function ibanProblem(iban: string): string | null {
  const { errorCodes } = validateIBAN(iban, { allowQRIBAN: true });
  // A national check digit within the BBAN is beyond D27's rule (country length and mod-97).
  const codes = errorCodes.filter((e) => e !== ValidationErrorsIBAN.WrongAccountBankBranchChecksum);
  if (codes.length === 0) return null;
  if (codes.includes(ValidationErrorsIBAN.NoIBANCountry)) return 'iban does not start with a known country code';
  if (codes.includes(ValidationErrorsIBAN.WrongBBANLength)) return 'iban has the wrong length for its country';
  if (codes.includes(ValidationErrorsIBAN.WrongBBANFormat)) return 'iban has characters its country does not use there';
  return "iban's check digits are wrong";
}

const ibanField = optionalField(v.pipe(
  v.string('iban must be text'),
  v.transform((s) => electronicFormatIBAN(s) ?? ''),
  v.check((s) => /^[A-Z0-9]{5,34}$/.test(s), 'iban must be an IBAN: a country code, two check digits and up to 30 letters or digits'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = ibanProblem(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
));

const emailField = optionalField(v.pipe(
  v.string('email must be text'),
  v.trim(),
  v.maxLength(EMAIL_MAX, `email has at most ${EMAIL_MAX} characters`),
  v.regex(/^[^\s@]+@[^\s@]+$/, 'email must be an email address'),
));

const memberNoField = optionalText('member_no', MEMBER_NO_MAX);

const mandateField = v.optional(v.nullable(v.object(
  {
    id: v.pipe(
      v.string('mandate.id is required'),
      v.trim(),
      v.regex(MANDATE_ID, "mandate.id must be 1–35 of the characters A–Z a–z 0–9 + ? / - : ( ) . , ' (no space)"),
    ),
    signed_on: dateString('mandate.signed_on'),
  },
  'mandate must be an object with id and signed_on',
)));

const planIdField = v.optional(v.nullable(v.pipe(
  v.number('dues_plan_id must be a positive integer'),
  v.integer('dues_plan_id must be a positive integer'),
  v.minValue(1, 'dues_plan_id must be a positive integer'),
  v.maxValue(2_147_483_647, 'dues_plan_id names no dues plan'),
)));

const personEntries = {
  name: requiredText('name', ACCOUNT_NAME_MAX),
  email: emailField,
  iban: ibanField,
  member_no: memberNoField,
  joined_on: optionalField(dateString('joined_on')),
  left_on: optionalField(dateString('left_on')),
  mandate: mandateField,
  dues_plan_id: planIdField,
  note: optionalText('note', NOTE_MAX, true),
};

/** POST /people and PUT /people/{id} (D27); PUT replaces: an absent optional field becomes null. */
export const NewPersonSchema = requestSchema('NewPerson', v.pipe(
  v.object(personEntries, 'the request body must be a JSON object'),
  v.check((p) => !p.joined_on || !p.left_on || p.left_on >= p.joined_on, 'left_on must not be before joined_on'),
));
export type NewPerson = v.InferOutput<typeof NewPersonSchema>;

/** POST /people/batch (D27): each person is checked on its own, so every bad row is named. */
export const PeopleBatchSchema = requestSchema('PeopleBatch', v.object(
  {
    people: v.pipe(
      v.array(v.unknown(), 'people must be an array'),
      v.minLength(1, 'people must name at least one person'),
      v.maxLength(BATCH_MAX, `people has at most ${BATCH_MAX} entries`),
    ),
  },
  'the request body must be a JSON object with people',
));

/** GET /people's query (D27). */
export const PeopleQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(ACCOUNT_NAME_MAX, `q has at most ${ACCOUNT_NAME_MAX} characters`), v.description('words of the name, email or member number (any case, any accents)'))),
  active_on: v.optional(v.pipe(dateString('active_on'), v.description('only people who are members on that day: joined_on null or ≤ it, left_on null or ≥ it'))),
});
export type PeopleQuery = v.InferOutput<typeof PeopleQuerySchema>;

/** A batch refused: every bad row by its 0-based index (D27). */
export class BatchRefusal extends Refusal {
  constructor(readonly rows: readonly { index: number; error: string }[]) {
    super('invalid', rows.length === 1 ? `row ${rows[0]!.index + 1}: ${rows[0]!.error}` : `${rows.length} rows cannot be taken; nothing was saved`);
  }
}

const personColumns = {
  id: people.id,
  name: people.name,
  email: people.email,
  iban: people.iban,
  memberNo: people.memberNo,
  joinedOn: people.joinedOn,
  leftOn: people.leftOn,
  mandateId: people.mandateId,
  mandateSignedOn: people.mandateSignedOn,
  duesPlanId: people.duesPlanId,
  note: people.note,
  accountId: people.accountId,
  // Natural sign of an asset account: the sum of its entries, read from the day totals (D7).
  balance: sql<string>`(select coalesce(sum(d.total_cents), 0)::text from ${accountDayTotals} d where d.account_id = ${people}.account_id)`,
};

const selectPeople = (db: Db) => db.select(personColumns).from(people);
type PersonRow = Awaited<ReturnType<typeof selectPeople>>[number];

function personView(r: PersonRow): Person {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    iban: r.iban,
    member_no: r.memberNo,
    joined_on: r.joinedOn,
    left_on: r.leftOn,
    mandate: r.mandateId !== null && r.mandateSignedOn !== null ? { id: r.mandateId, signed_on: r.mandateSignedOn } : null,
    dues_plan_id: r.duesPlanId,
    note: r.note,
    account_id: r.accountId,
    balance_cents: exactCents(r.balance),
  };
}

/** What a change record holds of a person (D27): never email, IBAN, mandate or note. */
export function personRecord(p: Pick<Person, 'id' | 'name' | 'member_no' | 'dues_plan_id' | 'joined_on' | 'left_on'>): PersonRecord {
  return { id: p.id, name: p.name, member_no: p.member_no, dues_plan_id: p.dues_plan_id, joined_on: p.joined_on, left_on: p.left_on };
}

/** `%`, `_` and `\` in the words match themselves. */
const likePattern = (words: string) => `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** By name (case-blind, then byte-wise, then id), so both backends order alike. */
const BY_NAME = [sql`lower(${people.name}) collate "C"`, sql`${people.name} collate "C"`, asc(people.id)];

/** GET /people (D27): by name; `q` as D15's accent- and case-blind match on name, email, member_no; `active_on` a day. */
export async function listPeople(db: Db, query: PeopleQuery = {}): Promise<Person[]> {
  const conditions: (SQL | undefined)[] = [];
  const q = query.q?.trim();
  if (q) {
    const pattern = foldForSearch(sql`${likePattern(q)}::text`);
    conditions.push(sql`(${foldForSearch(sql`${people.name}`)} like ${pattern}
      or ${foldForSearch(sql`coalesce(${people.email}, '')`)} like ${pattern}
      or ${foldForSearch(sql`coalesce(${people.memberNo}, '')`)} like ${pattern})`);
  }
  if (query.active_on) {
    conditions.push(sql`(${people.joinedOn} is null or ${people.joinedOn} <= ${query.active_on}::date)
      and (${people.leftOn} is null or ${people.leftOn} >= ${query.active_on}::date)`);
  }
  const rows = await selectPeople(db).where(and(...conditions)).orderBy(...BY_NAME);
  return rows.map(personView);
}

/** GET /people/{id} (D27); 404 when there is none. */
export async function getPerson(db: Db, id: number): Promise<Person> {
  const [row] = await selectPeople(db).where(eq(people.id, id));
  if (!row) throw notFound(NO_SUCH_PERSON);
  return personView(row);
}

/** The person whose account `accountId` is, or undefined (D27: that account is in use). */
export async function personOfAccount(db: Db, accountId: number): Promise<{ id: number; name: string } | undefined> {
  const [row] = await db.select({ id: people.id, name: people.name }).from(people).where(eq(people.accountId, accountId)).limit(1);
  return row;
}

/** The columns a person's input sets (D27: IBAN without spaces in capitals, a mandate's two halves). */
function rowOf(input: NewPerson) {
  return {
    name: input.name,
    email: input.email ?? null,
    iban: input.iban ?? null,
    memberNo: input.member_no ?? null,
    joinedOn: input.joined_on ?? null,
    leftOn: input.left_on ?? null,
    mandateId: input.mandate?.id ?? null,
    mandateSignedOn: input.mandate?.signed_on ?? null,
    duesPlanId: input.dues_plan_id ?? null,
    note: input.note ?? null,
  };
}

/**
 * The book's rules on a set of new or changed people, each by its place in `inputs`: an account of
 * the name exists (another than `ownAccounts[i]`), a member number is taken by someone else, a plan
 * is unknown; and, within the set, two with one name or one member number. Plans are read with a
 * key-share lock, so a plan cannot go while a person is given it.
 */
async function problemsOf(db: Db, inputs: readonly NewPerson[], except: { personId?: number; accountId?: number } = {}): Promise<Map<number, string>> {
  const problems = new Map<number, string>();
  const note = (i: number, message: string) => {
    if (!problems.has(i)) problems.set(i, message);
  };
  const names = new Map<string, number>();
  const numbers = new Map<string, number>();
  inputs.forEach((p, i) => {
    const key = p.name.toLowerCase();
    const first = names.get(key);
    if (first !== undefined) note(i, `name: row ${first + 1} has the name ${p.name} already`);
    else names.set(key, i);
    if (p.member_no) {
      const firstNo = numbers.get(p.member_no);
      if (firstNo !== undefined) note(i, `member_no: row ${firstNo + 1} has the member number ${p.member_no} already`);
      else numbers.set(p.member_no, i);
    }
  });
  const lowered = [...names.keys()];
  const clashes = await db
    .select({ name: accounts.name, lower: sql<string>`lower(${accounts.name})` })
    .from(accounts)
    .where(and(
      inArray(sql`lower(${accounts.name})`, lowered),
      except.accountId === undefined ? undefined : sql`${accounts.id} <> ${except.accountId}`,
    ));
  const clashOf = new Map(clashes.map((a) => [a.lower, a.name]));
  const wanted = [...numbers.keys()];
  const taken = wanted.length === 0 ? [] : await db
    .select({ memberNo: people.memberNo, name: people.name })
    .from(people)
    .where(and(inArray(people.memberNo, wanted), except.personId === undefined ? undefined : sql`${people.id} <> ${except.personId}`));
  const takenBy = new Map(taken.map((t) => [t.memberNo!, t.name]));
  const planIds = [...new Set(inputs.flatMap((p) => (p.dues_plan_id ? [p.dues_plan_id] : [])))];
  const plans = planIds.length === 0 ? [] : await db.select({ id: duesPlans.id }).from(duesPlans).where(inArray(duesPlans.id, planIds)).for('key share');
  const known = new Set(plans.map((p) => p.id));
  inputs.forEach((p, i) => {
    const clash = clashOf.get(p.name.toLowerCase());
    if (clash !== undefined) note(i, `name: an account named ${clash} exists already (a person's account is named as the person)`);
    if (p.member_no && takenBy.has(p.member_no)) note(i, `member_no ${p.member_no} is taken by ${takenBy.get(p.member_no)}`);
    if (p.dues_plan_id && !known.has(p.dues_plan_id)) note(i, 'dues_plan_id names no dues plan');
  });
  return problems;
}

/** A single person's problem as the 400 of POST or PUT. */
async function refuseProblems(db: Db, input: NewPerson, except: { personId?: number; accountId?: number } = {}): Promise<void> {
  const problem = (await problemsOf(db, [input], except)).get(0);
  if (problem) throw invalid(problem);
}

/** A constraint that a concurrent writer won first, in the words of the check that missed it. */
function refusalOfConstraint(error: unknown): never {
  const constraint = sqlConstraint(error);
  if (constraint === 'people_member_no_unique') throw invalid('member_no is taken by another person');
  if (constraint === 'accounts_name_lower_unique') throw invalid('name: an account with that name exists already');
  throw error;
}

/**
 * D27: after people are saved (created, replaced, a batch), once their database transaction has
 * committed, in the same request: what is due for them is posted.
 */
async function afterSave(db: Db, personIds: readonly number[]): Promise<void> {
  // D27: dues due are posted here (src/book/dues-posting.ts)
  for (const personId of personIds) await postDuesFor(db, { personId });
}

/** Inserts people and their accounts (already checked), with one change record each; their ids in order. */
async function insertPeople(tx: Db, inputs: readonly NewPerson[], actor: Actor): Promise<number[]> {
  const made = await tx
    .insert(accounts)
    .values(inputs.map((p) => ({ name: p.name, kind: 'asset' as const })))
    .returning({ id: accounts.id, name: accounts.name });
  const accountOf = new Map(made.map((a) => [a.name.toLowerCase(), a.id]));
  const rows = await tx
    .insert(people)
    .values(inputs.map((p) => ({ ...rowOf(p), accountId: accountOf.get(p.name.toLowerCase())! })))
    .returning({ id: people.id, name: people.name, member_no: people.memberNo, dues_plan_id: people.duesPlanId, joined_on: people.joinedOn, left_on: people.leftOn });
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const ordered = inputs.map((p) => byName.get(p.name.toLowerCase())!);
  for (const r of ordered) {
    await recordChange(tx, actor, { subject: 'person', subjectId: r.id, action: 'create', before: null, after: personRecord(r) });
  }
  return ordered.map((r) => r.id);
}

/** POST /people (D27): the person and their own asset account, in one database transaction. */
export async function createPerson(db: Db, input: NewPerson, actor: Actor): Promise<Person> {
  const [id] = await db
    .transaction(async (tx) => {
      await refuseProblems(tx, input);
      return insertPeople(tx, [input], actor);
    })
    .catch(refusalOfConstraint);
  await afterSave(db, [id!]);
  return getPerson(db, id!);
}

/**
 * POST /people/batch (D27): all or nothing. Every row is checked (its fields, then the book's
 * rules, a name clash within the batch included) before anything is written; any problem refuses
 * the whole batch with every bad row by its 0-based index.
 */
export async function createPeople(db: Db, raw: readonly unknown[], actor: Actor): Promise<number[]> {
  const rows: { index: number; error: string }[] = [];
  const inputs: NewPerson[] = [];
  raw.forEach((item, index) => {
    const parsed = v.safeParse(NewPersonSchema, item);
    if (parsed.success) inputs.push(parsed.output);
    else rows.push({ index, error: describeIssue(parsed.issues) });
  });
  if (rows.length > 0) throw new BatchRefusal(rows);
  const ids = await db
    .transaction(async (tx) => {
      const problems = await problemsOf(tx, inputs);
      if (problems.size > 0) throw new BatchRefusal([...problems].sort(([a], [b]) => a - b).map(([index, error]) => ({ index, error })));
      return insertPeople(tx, inputs, actor);
    })
    .catch(refusalOfConstraint);
  await afterSave(db, ids);
  return ids;
}

/** The first problem of a row, naming its field (`mandate.id`, not "entry 1"). */
function describeIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0]!;
  const field = issue.path?.at(-1)?.key;
  if (issue.type === 'object' && issue.received === 'undefined' && typeof field === 'string') return `${field} is required`;
  return issue.message;
}

/** The person's row, locked until the transaction ends; 404 when there is none. */
async function lockPerson(tx: Db, id: number): Promise<Person> {
  const [row] = await tx.select({ id: people.id }).from(people).where(eq(people.id, id)).for('update');
  if (!row) throw notFound(NO_SUCH_PERSON);
  return getPerson(tx, id);
}

/**
 * PUT /people/{id} (D27): replaces every field. A new name renames the person's account too; a
 * new plan starts from today (`dues_from`): the new plan's earlier occurrences count as handled.
 */
export async function replacePerson(db: Db, id: number, input: NewPerson, actor: Actor): Promise<Person> {
  await db
    .transaction(async (tx) => {
      const before = await lockPerson(tx, id);
      await refuseProblems(tx, input, { personId: id, accountId: before.account_id });
      const planChanged = (input.dues_plan_id ?? null) !== before.dues_plan_id;
      await tx
        .update(people)
        .set({ ...rowOf(input), ...(planChanged && { duesFrom: todayUtc() }) })
        .where(eq(people.id, id));
      if (input.name !== before.name) await tx.update(accounts).set({ name: input.name }).where(eq(accounts.id, before.account_id));
      const after = await getPerson(tx, id);
      await recordChange(tx, actor, { subject: 'person', subjectId: id, action: 'update', before: personRecord(before), after: personRecord(after) });
    })
    .catch(refusalOfConstraint);
  await afterSave(db, [id]);
  return getPerson(db, id);
}

/** POST /people/{id}/forget (D27): email, IBAN, mandate and note cleared; the name stays; one change record. */
export function forgetPerson(db: Db, id: number, actor: Actor): Promise<Person> {
  return db.transaction(async (tx) => {
    const before = await lockPerson(tx, id);
    await tx.update(people).set({ email: null, iban: null, mandateId: null, mandateSignedOn: null, note: null }).where(eq(people.id, id));
    // The collections' copies for the bank file go too (that file can then no longer be made for them).
    await tx.update(directDebitItems).set({ debtorIban: null, mandateId: null, mandateSignedOn: null }).where(eq(directDebitItems.personId, id));
    const after = await getPerson(tx, id);
    await recordChange(tx, actor, { subject: 'person', subjectId: id, action: 'update', before: personRecord(before), after: personRecord(after) });
    return after;
  });
}

/**
 * DELETE /people/{id} (D27): the person and their account, 409 when the account has entries (D15).
 * The account's row lock orders the delete with any post naming it (a post takes a key-share lock).
 */
export function deletePerson(db: Db, id: number, actor: Actor): Promise<void> {
  return db.transaction(async (tx) => {
    // Before the account's row lock: a fold under way finishes first (issue 31 item 5, D7).
    await holdOffCompaction(tx);
    const before = await lockPerson(tx, id);
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, before.account_id)).for('update');
    const [used] = await tx.select({ id: entries.id }).from(entries).where(eq(entries.accountId, before.account_id)).limit(1);
    if (used) throw conflict('the account has entries');
    await tx.delete(people).where(eq(people.id, id));
    await tx.delete(accounts).where(eq(accounts.id, before.account_id));
    await recordChange(tx, actor, { subject: 'person', subjectId: id, action: 'delete', before: personRecord(before), after: null });
  });
}
