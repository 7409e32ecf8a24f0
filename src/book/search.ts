import { sql, type SQL } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { accounts, entries, INT4_MAX, transactions, users, attachments } from '../db/schema';
import { invalid } from '../errors';
import { positiveIntegerParam } from '../text';
import { DESCRIPTION_MAX, transactionJson, TransactionRangeSchema } from './transactions';

// D15: GET /transactions with `q`, `account_id`, `limit` and `cursor`: finding a transaction by
// its words or its account, and paging through a long book. Without these parameters the list is
// exactly the spec's (listTransactionsJson); with any of them, this statement answers.

export const SEARCH_LIMIT_MAX = 1000;

/** The query of GET /transactions: the spec's range, and D15's search and paging. */
export const TransactionQuerySchema = v.object({
  ...TransactionRangeSchema.entries,
  q: v.optional(v.pipe(v.string(), v.maxLength(DESCRIPTION_MAX, `q has at most ${DESCRIPTION_MAX} characters`), v.description('words of the description or of an account name (any case, any accents), or an amount (94.90, 94,90, 94)'))),
  account_id: v.optional(v.pipe(positiveIntegerParam('account_id', INT4_MAX), v.description('only transactions with an entry on this account'))),
  limit: v.optional(v.pipe(positiveIntegerParam('limit', SEARCH_LIMIT_MAX), v.description('at most this many; more are announced in Next-Cursor'))),
  cursor: v.optional(v.pipe(v.string(), v.description('the Next-Cursor of the previous page'))),
});
export type TransactionQuery = v.InferOutput<typeof TransactionQuerySchema>;

/** True when the query asks for more than the spec's list. */
export function isSearch(query: TransactionQuery): boolean {
  return query.q !== undefined || query.account_id !== undefined || query.limit !== undefined || query.cursor !== undefined;
}

/** The cursor is where the last page ended: its (occurred_on, id), opaque to the caller. */
function encodeCursor(occurredOn: string, id: number): string {
  return Buffer.from(JSON.stringify([occurredOn, id])).toString('base64url');
}

function decodeCursor(cursor: string): { occurredOn: string; id: number } {
  try {
    const [occurredOn, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof occurredOn === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(occurredOn) && Number.isSafeInteger(id)) {
      return { occurredOn, id: id as number };
    }
  } catch {
    // refused below
  }
  throw invalid('cursor is not one this API gave');
}

/** `%`, `_` and `\` in the words match themselves. */
const likePattern = (words: string) => `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * D15 (issue 25 item 6): text as search compares it, without case or accents (`Müller`, `MULLER`
 * and `muller` are one), by PostgreSQL's own functions, so both servers agree with no extension
 * (`unaccent` is one): decomposed (NFD, PostgreSQL 13 and later, UTF-8 databases), its combining
 * marks (U+0300–U+036F) dropped, then lower case. The letters that do not decompose are spelt as
 * people type them without the key (`ß` as `ss`, `ø` as `o`, `æ` as `ae`). Applied to both sides.
 */
export function foldForSearch(text: SQL): SQL {
  return sql`replace(replace(replace(translate(lower(regexp_replace(normalize(${text}, NFD), '[\\u0300-\\u036f]', '', 'g')), 'øłđħı', 'oldhi'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe')`;
}

/**
 * D15: `q` read as an amount, in cents, when it is one (`94.90`, `94,90`, `94.9`, `94`: digits with
 * at most one decimal mark and one or two decimals); a transaction matches when one of its entries
 * moves that much either way. Null for any other text.
 */
export function amountOfQuery(q: string): number | null {
  const match = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(q.trim());
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/**
 * D15: the condition `q` puts on the transaction `t`: its description, or the name of an account
 * one of its entries names, contains `q` ignoring case and accents; or `q` reads as an amount equal
 * to the absolute value of one of its entries. True when there is no `q`.
 */
function matchesQuery(q: string | undefined): SQL {
  if (q === undefined) return sql`true`;
  const pattern = foldForSearch(sql`${likePattern(q)}::text`);
  const cents = amountOfQuery(q);
  return sql`(${foldForSearch(sql`t.description`)} like ${pattern}
    or exists (select 1 from ${entries} e join ${accounts} a on a.id = e.account_id
      where e.transaction_id = t.id and ${foldForSearch(sql`a.name`)} like ${pattern})
    or (${cents}::bigint is not null and exists (select 1 from ${entries} e
      where e.transaction_id = t.id and abs(e.amount_cents) = ${cents}::bigint)))`;
}

/**
 * D15/D20: in the paged form (with `limit`) a transaction also says whether any of its entries is
 * reconciled, so a list marks and locks them without a request per row; D22: and how many receipts
 * it has (the paperclip).
 */
const PAGED_JSON = transactionJson(sql`, 'reconciled', exists (
  select 1 from ${entries} r where r.transaction_id = t.id and r.reconciliation_id is not null),
  'attachments', (select count(*) from ${attachments} f where f.transaction_id = t.id)`);

/** The page as JSON text (the spec's order), and the cursor of the next page when there is one. */
export async function searchTransactionsJson(db: Db, query: TransactionQuery): Promise<{ list: string; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const limit = query.limit ?? null;
  const result = await db.execute(sql`
    with page as (
      select * from ${transactions} t
      where t.occurred_on >= coalesce(${query.from ?? null}::date, '-infinity'::date)
        and t.occurred_on <= coalesce(${query.to ?? null}::date, 'infinity'::date)
        and ${matchesQuery(query.q)}
        and (${query.account_id ?? null}::integer is null
          or exists (select 1 from ${entries} e where e.transaction_id = t.id and e.account_id = ${query.account_id ?? null}::integer))
        and (${after?.occurredOn ?? null}::date is null or (t.occurred_on, t.id) < (${after?.occurredOn ?? null}::date, ${after?.id ?? null}::integer))
      -- The order of transactions_occurred_on_id_idx (nulls last, though there are none): only an
      -- order that matches the index exactly lets a page be read from it, not sorted from the book.
      order by t.occurred_on desc nulls last, t.id desc nulls last
      limit ${limit === null ? null : limit + 1}::integer
    ), shown as (
      select * from page order by occurred_on desc, id desc limit ${limit}::integer
    )
    select
      (select coalesce(json_agg(${limit === null ? transactionJson() : PAGED_JSON} order by t.occurred_on desc, t.id desc), '[]'::json)::text
        from shown t left join ${users} u on u.id = t.created_by) as list,
      (select count(*) from page) > (select count(*) from shown) as more,
      (select occurred_on::text from shown order by occurred_on asc, id asc limit 1) as last_on,
      (select id from shown order by occurred_on asc, id asc limit 1) as last_id`);
  const [row] = rowsOf<{ list: string; more: boolean; last_on: string | null; last_id: number | null }>(result);
  const nextCursor = row!.more && row!.last_on !== null ? encodeCursor(row!.last_on, Number(row!.last_id)) : null;
  return { list: row!.list, nextCursor };
}
