import type * as v from 'valibot';
import type { Db } from '../db/database';
import { getPerson } from './people';
import { accountRegisterReport, PeriodSchema } from './reports';
import type { PersonStatement } from './views';

// D27: a person's statement of account: their account's register (D7), in the person's words.
// The account is an asset, so the register's natural sign is the statement's: a charge positive,
// a payment negative; `from`/`to` default as the register's (the book's first and last dates).

export const StatementQuerySchema = PeriodSchema;
export type StatementQuery = v.InferOutput<typeof StatementQuerySchema>;

/** GET /people/{id}/statement (D27); 404 when there is no such person. */
export async function personStatement(db: Db, personId: number, query: StatementQuery): Promise<v.InferOutput<typeof PersonStatement>> {
  const person = await getPerson(db, personId);
  const register = await accountRegisterReport(db, person.account_id, query);
  return {
    person_id: person.id,
    name: person.name,
    from: register.from,
    to: register.to,
    opening_cents: register.opening_balance_cents,
    lines: register.entries.map((e) => ({
      transaction_id: e.transaction_id,
      occurred_on: e.occurred_on,
      description: e.description,
      amount_cents: e.amount_cents,
      balance_cents: e.balance_cents,
    })),
    closing_cents: register.closing_balance_cents,
  };
}
