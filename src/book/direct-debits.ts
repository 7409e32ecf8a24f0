import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { DIRECT_DEBIT_LOCK } from '../db/locks';
import { accounts, directDebitItems, directDebits, INT4_MAX, people, settings, transactions } from '../db/schema';
import { conflict, invalid, notFound } from '../errors';
import { requestSchema } from '../shapes';
import { dateString, todayUtc } from '../text';
import { recordChange, type Actor, type Author } from './changes';
import { deleteTransaction } from './corrections';
import { epcText } from './sepa';
import { insertTransaction } from './transactions';
import type { DirectDebit as DirectDebitShape } from './views';

// D27's direct debit (SEPA Core): a collection takes what each person owes (their account's
// balance, all entries) from those with an IBAN and a mandate signed by the collection date, in one
// database transaction: one transaction per person (their account credited, "Direct debits in
// transit" debited), the collection record and, per person, what the bank file says of them. A
// person collected owes nothing afterwards, so the same dues are never collected twice; collections
// run one at a time under DIRECT_DEBIT_LOCK so two at once cannot both read the same balance.

export type DirectDebit = v.InferOutput<typeof DirectDebitShape>;
type Skip = DirectDebit['skipped'][number];

export const NO_SUCH_DIRECT_DEBIT = 'no such direct debit';
/** The account the collected money waits in until the bank's credit of the batch arrives (D27). */
export const IN_TRANSIT_ACCOUNT = 'Direct debits in transit';
/** SEPA's remittance text (`RmtInf/Ustrd`) holds at most 140 characters. */
const REMITTANCE_MAX = 140;
/** SEPA's names (`Dbtr/Nm`) hold at most 70 characters. */
const NAME_MAX = 70;

/** `POST /direct-debits` body (D27). */
export const NewDirectDebitSchema = requestSchema(
  'NewDirectDebit',
  v.object(
    {
      collect_on: dateString('collect_on'),
      people: v.optional(
        v.pipe(
          v.array(v.pipe(v.number('people must hold person ids'), v.integer('people must hold person ids'), v.minValue(1, 'people must hold person ids'), v.maxValue(INT4_MAX, 'people must hold person ids')), 'people must be a list of person ids'),
          v.minLength(1, 'people must name at least one person (leave it out for everyone who owes)'),
          v.maxLength(10_000, 'people names at most 10000 people'),
        ),
      ),
    },
    'give collect_on (and people, if not everyone)',
  ),
);
export type NewDirectDebit = v.InferOutput<typeof NewDirectDebitSchema>;

/** One person as a collection reads them: what they owe, and what the bank needs. */
interface Debtor {
  id: number;
  name: string;
  iban: string | null;
  mandate_id: string | null;
  mandate_signed_on: string | null;
  account_id: number;
  balance_cents: number;
}

/** Why a person who owes is left out (D27), or null when they can be collected on `collectOn`. */
function skipReason(d: Debtor, collectOn: string): Skip['reason'] | null {
  if (!d.iban) return 'no_iban';
  if (!d.mandate_id || !d.mandate_signed_on) return 'no_mandate';
  if (d.mandate_signed_on > collectOn) return 'mandate_after_collect_on';
  return null;
}

/** Who a collection on `collectOn` takes (by name), and who owes but is skipped, and why. */
async function selection(db: Db, collectOn: string, listed: readonly number[] | undefined) {
  const owing = await debtors(db, listed);
  const skipped: Skip[] = [];
  const collected: Debtor[] = [];
  for (const d of owing) {
    const reason = skipReason(d, collectOn);
    if (reason) skipped.push({ person_id: d.id, reason });
    else collected.push(d);
  }
  return { owing, collected, skipped };
}

/** The people who owe (balance above zero), by name; all of them, or those listed. */
async function debtors(db: Db, listed: readonly number[] | undefined): Promise<Debtor[]> {
  const only = listed ? sql`where p.id = any(${`{${listed.join(',')}}`}::integer[])` : sql``;
  const result = await db.execute(sql`
    select p.id, p.name, p.iban, p.mandate_id, p.mandate_signed_on::text as mandate_signed_on, p.account_id,
      (select coalesce(sum(e.amount_cents), 0) from entries e where e.account_id = p.account_id)::bigint as balance_cents
    from ${people} p ${only}
    order by lower(p.name), p.id`);
  return rowsOf<Debtor>(result)
    .map((d) => ({ ...d, balance_cents: Number(d.balance_cents) }))
    .filter((d) => d.balance_cents > 0);
}

/**
 * The open charges of each account, as the remittance text names them (D27: `<plan name>
 * <YYYY-MM>, …`): payments settle the oldest charges first, so what is open is the newest charges
 * that together reach the balance, told oldest first. One statement for every account.
 */
async function openCharges(db: Db, owing: readonly Debtor[]): Promise<Map<number, string[]>> {
  const open = new Map<number, string[]>();
  if (owing.length === 0) return open;
  const result = await db.execute(sql`
    with owing as (
      select * from unnest(${`{${owing.map((d) => d.account_id).join(',')}}`}::integer[], ${`{${owing.map((d) => d.balance_cents).join(',')}}`}::bigint[]) as o(account_id, balance)
    ), charges as (
      select e.account_id, t.description, t.occurred_on, e.id, o.balance,
        sum(e.amount_cents) over (partition by e.account_id order by t.occurred_on desc, e.id desc) - e.amount_cents as newer
      from entries e join owing o on o.account_id = e.account_id join ${transactions} t on t.id = e.transaction_id
      where e.amount_cents > 0
    )
    select account_id, description from charges where newer < balance order by account_id, occurred_on, id`);
  for (const row of rowsOf<{ account_id: number; description: string }>(result)) {
    const list = open.get(row.account_id) ?? [];
    list.push(row.description);
    open.set(row.account_id, list);
  }
  return open;
}

/** `<plan name> <YYYY-MM>, …` in the EPC's characters, cut to 140 (D27). */
function remittanceOf(charges: readonly string[] | undefined): string {
  const text = epcText((charges ?? []).join(', ')) || 'Direct debit';
  return text.length <= REMITTANCE_MAX ? text : text.slice(0, REMITTANCE_MAX).trimEnd();
}

/**
 * The pain.008 message id: unique per file, ≤ 35 characters with room for the payment
 * information id (`.P1`) and the instruction ids after it; the date first, for a person reading
 * the bank's statement, then 32 random bits.
 */
function newMessageId(collectOn: string): string {
  return `DD-${collectOn.replaceAll('-', '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

/** The in-transit account (asset), made when missing; an account of that name of another kind: 409. */
async function inTransitAccount(db: Db, actor: Actor): Promise<number> {
  const [found] = await db
    .select({ id: accounts.id, kind: accounts.kind })
    .from(accounts)
    .where(sql`lower(${accounts.name}) = lower(${IN_TRANSIT_ACCOUNT})`);
  if (found) {
    if (found.kind !== 'asset') throw conflict(`the account "${IN_TRANSIT_ACCOUNT}" must be an asset account to hold collected money; it is ${found.kind}`);
    return found.id;
  }
  const [made] = await db.insert(accounts).values({ name: IN_TRANSIT_ACCOUNT, kind: 'asset' }).returning({ id: accounts.id, name: accounts.name, kind: accounts.kind });
  await recordChange(db, actor, { subject: 'account', subjectId: made!.id, action: 'create', before: null, after: made });
  return made!.id;
}

/** `GET /direct-debits/draft` query: what a collection would take, before it is made. */
export const DirectDebitDraftQuerySchema = v.object({ collect_on: dateString('collect_on') });

/**
 * What POST /direct-debits would collect on `collect_on` now (nothing written): each person with
 * the amount, and who is skipped and why — the page shows it before the treasurer collects.
 */
export async function draftDirectDebit(db: Db, collectOn: string) {
  const { collected, skipped } = await selection(db, collectOn, undefined);
  return {
    collect_on: collectOn,
    people: collected.map((d) => ({ person_id: d.id, name: d.name, amount_cents: d.balance_cents })),
    count: collected.length,
    total_cents: collected.reduce((sum, d) => sum + d.balance_cents, 0),
    skipped,
  };
}

/** `POST /direct-debits` (D27): one collection, wholly or not at all. */
export async function createDirectDebit(db: Db, input: NewDirectDebit, author: Author, today = todayUtc()): Promise<DirectDebit> {
  if (input.collect_on < today) throw invalid(`collect_on must be today (${today}) or later`);
  const listed = input.people ? [...new Set(input.people)] : undefined;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DIRECT_DEBIT_LOCK})`);
    const [book] = await tx.select({ currency: settings.currency, sepa: settings.sepa }).from(settings);
    if (!book?.sepa) throw conflict('enter the club\'s creditor details first (Settings: name, IBAN and creditor identifier)');
    if (book.currency !== 'EUR') throw conflict(`SEPA direct debit collects euros; this book keeps ${book.currency}`);
    if (listed) {
      const known = rowsOf<{ id: number }>(await tx.execute(sql`select id from ${people} where id = any(${`{${listed.join(',')}}`}::integer[])`));
      const missing = listed.find((id) => !known.some((k) => k.id === id));
      if (missing !== undefined) throw invalid(`people: there is no person ${missing}`);
    }
    const { owing, collected, skipped } = await selection(tx, input.collect_on, listed);
    if (collected.length === 0) {
      throw conflict(owing.length === 0 ? 'nobody owes anything: there is nothing to collect' : 'nobody who owes can be collected: each lacks an IBAN or a mandate signed by the collection date');
    }
    const transit = await inTransitAccount(tx, author);
    const charges = await openCharges(tx, collected);
    const messageId = newMessageId(input.collect_on);
    const [record] = await tx
      .insert(directDebits)
      .values({ collectOn: input.collect_on, messageId, skipped, createdBy: author.userId })
      .returning({ id: directDebits.id });
    const items = [];
    for (const [i, d] of collected.entries()) {
      const transactionId = await insertTransaction(tx, {
        occurred_on: input.collect_on,
        description: `Direct debit ${input.collect_on}`,
        entries: [
          { account_id: transit, amount_cents: d.balance_cents },
          { account_id: d.account_id, amount_cents: -d.balance_cents },
        ],
      }, author);
      items.push({
        directDebitId: record!.id,
        position: i + 1,
        personId: d.id,
        transactionId,
        amountCents: d.balance_cents,
        endToEndId: `${messageId}-${i + 1}`,
        debtorName: (epcText(d.name) || 'Member').slice(0, NAME_MAX).trimEnd(),
        debtorIban: d.iban,
        mandateId: d.mandate_id,
        mandateSignedOn: d.mandate_signed_on,
        remittance: remittanceOf(charges.get(d.account_id)),
      });
    }
    await tx.insert(directDebitItems).values(items);
    return readDirectDebit(tx, record!.id) as Promise<DirectDebit>;
  });
}

const directDebitJson = sql`
  select d.id, d.collect_on::text as collect_on, d.message_id, d.skipped,
    coalesce((select json_agg(i.transaction_id order by i.position) from ${directDebitItems} i where i.direct_debit_id = d.id), '[]'::json) as transaction_ids,
    (select count(*) from ${directDebitItems} i where i.direct_debit_id = d.id)::integer as count,
    (select coalesce(sum(i.amount_cents), 0) from ${directDebitItems} i where i.direct_debit_id = d.id)::bigint as total_cents
  from ${directDebits} d`;

function directDebitOf(row: Record<string, unknown>): DirectDebit {
  return {
    id: Number(row.id),
    collect_on: String(row.collect_on),
    message_id: String(row.message_id),
    transaction_ids: (row.transaction_ids as number[]).map(Number),
    count: Number(row.count),
    total_cents: Number(row.total_cents),
    skipped: row.skipped as Skip[],
  };
}

async function readDirectDebit(db: Db, id: number): Promise<DirectDebit | undefined> {
  const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`${directDebitJson} where d.id = ${id}`));
  return row ? directDebitOf(row) : undefined;
}

/** `GET /direct-debits`: newest first. */
export async function listDirectDebits(db: Db): Promise<DirectDebit[]> {
  return rowsOf<Record<string, unknown>>(await db.execute(sql`${directDebitJson} order by d.id desc`)).map(directDebitOf);
}

export async function getDirectDebit(db: Db, id: number): Promise<DirectDebit> {
  const found = await readDirectDebit(db, id);
  if (!found) throw notFound(NO_SUCH_DIRECT_DEBIT);
  return found;
}

/**
 * `DELETE /direct-debits/{id}`: its transactions go (each with its change record; D20's locks
 * apply: a reconciled one or one in a closed period refuses, and nothing is deleted), and the
 * people owe again. A transaction deleted on its own since is passed over.
 */
export async function deleteDirectDebit(db: Db, id: number, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DIRECT_DEBIT_LOCK})`);
    const [found] = await tx.select({ id: directDebits.id }).from(directDebits).where(eq(directDebits.id, id)).for('update');
    if (!found) throw notFound(NO_SUCH_DIRECT_DEBIT);
    const live = rowsOf<{ transaction_id: number }>(await tx.execute(sql`
      select i.transaction_id from ${directDebitItems} i join ${transactions} t on t.id = i.transaction_id
      where i.direct_debit_id = ${id} order by i.position`));
    for (const { transaction_id } of live) await deleteTransaction(tx, Number(transaction_id), actor);
    await tx.delete(directDebits).where(eq(directDebits.id, id));
  });
}

/**
 * The pre-notification of each person collected (SEPA Core: the debtor is told amount, date,
 * mandate reference and creditor identifier before the debit), by name: for a letter or a mail merge.
 */
export async function preNotifications(db: Db, id: number) {
  const { head, items, sepa } = await collectionForFile(db, id);
  const emails = new Map(
    rowsOf<{ id: number; name: string; email: string | null }>(
      await db.execute(sql`select p.id, p.name, p.email from ${people} p join ${directDebitItems} i on i.person_id = p.id where i.direct_debit_id = ${id}`),
    ).map((p) => [Number(p.id), p]),
  );
  return items.map((i) => ({
    person_id: i.personId,
    name: emails.get(i.personId)?.name ?? i.debtorName,
    email: emails.get(i.personId)?.email ?? null,
    amount_cents: i.amountCents,
    collect_on: head.collectOn,
    mandate_id: i.mandateId,
    creditor_name: sepa?.creditor_name ?? null,
    creditor_id: sepa?.creditor_id ?? null,
    remittance: i.remittance,
  }));
}

/** What the bank file needs of one collection: its record, and each person collected as the file tells them. */
export async function collectionForFile(db: Db, id: number) {
  const [head] = await db.select().from(directDebits).where(eq(directDebits.id, id));
  if (!head) throw notFound(NO_SUCH_DIRECT_DEBIT);
  const items = await db.select().from(directDebitItems).where(eq(directDebitItems.directDebitId, id)).orderBy(directDebitItems.position);
  const [book] = await db.select({ sepa: settings.sepa, currency: settings.currency }).from(settings);
  return { head, items, sepa: book?.sepa ?? null, currency: book?.currency ?? 'EUR' };
}
