import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { rowsOf, type Db } from '../db/database';
import { entries, people } from '../db/schema';
import { dateString, todayUtc } from '../text';
import { exactCents } from './reports';
import type { WhoOwes } from './views';

// D27: who owes, and since when. Payments settle the oldest charges first (FIFO): a charge is a
// positive entry on the person's account, a payment a negative one. With P the sum of the payments
// through `as_of`, the charges in date order (then transaction, then entry) are settled while their
// running total stays ≤ P; the first charge whose running total passes P is the oldest one not
// settled, and its date is `overdue_since`. One statement over every person, computed in SQL: no
// person's history is loaded into Node.

export const WhoOwesQuerySchema = v.object({ as_of: v.optional(dateString('as_of')) });
export type WhoOwesQuery = v.InferOutput<typeof WhoOwesQuerySchema>;

/** GET /reports/people (D27). */
export async function whoOwes(db: Db, query: WhoOwesQuery): Promise<v.InferOutput<typeof WhoOwes>> {
  const asOf = query.as_of ?? todayUtc();
  const rows = rowsOf<{ id: number; name: string; balance: string; since: string | null }>(await db.execute(sql`
    with e as (
      select p.id as person_id, n.amount_cents, n.occurred_on, n.transaction_id, n.id
      from ${people} p
      join ${entries} n on n.account_id = p.account_id
      where n.occurred_on <= ${asOf}::date
    ), totals as (
      select person_id, sum(amount_cents) as balance, sum(greatest(-amount_cents, 0)) as paid
      from e
      group by person_id
    ), charges as (
      select person_id, occurred_on,
        sum(amount_cents) over (partition by person_id order by occurred_on, transaction_id, id) as running
      from e
      where amount_cents > 0
    ), since as (
      select c.person_id, min(c.occurred_on) as since
      from charges c
      join totals t on t.person_id = c.person_id
      where t.balance > 0 and c.running > t.paid
      group by c.person_id
    )
    select p.id, p.name, t.balance::text as balance, s.since::text as since
    from ${people} p
    join totals t on t.person_id = p.id
    left join since s on s.person_id = p.id
    where t.balance <> 0
    order by lower(p.name) collate "C", p.name collate "C", p.id`));
  let owedToBook = 0n;
  let owedByBook = 0n;
  const list = rows.map((r) => {
    const balance = BigInt(r.balance);
    if (balance > 0n) owedToBook += balance;
    else owedByBook -= balance;
    return {
      id: r.id,
      name: r.name,
      balance_cents: exactCents(balance),
      overdue_cents: balance > 0n ? exactCents(balance) : 0,
      overdue_since: balance > 0n ? r.since : null,
    };
  });
  return { as_of: asOf, people: list, owed_to_book_cents: exactCents(owedToBook), owed_by_book_cents: exactCents(owedByBook) };
}
