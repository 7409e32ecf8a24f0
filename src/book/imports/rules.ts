import { asc, eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../../db/database';
import { sqlConstraint, sqlState } from '../../db/database';
import { importRules, INT4_MAX } from '../../db/schema';
import { invalid, notFound } from '../../errors';
import { requestSchema, strictBody } from '../../shapes';
import { requiredText } from '../../text';
import type { ImportRule } from '../views';

// D16: import rules. A rule books every statement line whose description contains `pattern`
// (case-insensitively) against `account_id`; the lowest id that matches wins.

export const RULE_PATTERN_MAX = 100;

export const NewImportRuleSchema = requestSchema('NewImportRule', strictBody(
  {
    pattern: requiredText('pattern', RULE_PATTERN_MAX),
    account_id: v.pipe(
      v.number('account_id must be an integer'),
      v.integer('account_id must be an integer'),
      v.minValue(1, 'account_id must be a positive integer'),
      v.maxValue(INT4_MAX, 'account_id names no account'),
    ),
  },
  'the request body must be a JSON object with pattern and account_id',
));
export type NewImportRule = v.InferOutput<typeof NewImportRuleSchema>;
type Rule = v.InferOutput<typeof ImportRule>;

/** Every rule, lowest id (the one that wins) first. */
export function listImportRules(db: Db): Promise<Rule[]> {
  return db
    .select({ id: importRules.id, pattern: importRules.pattern, account_id: importRules.accountId })
    .from(importRules)
    .orderBy(asc(importRules.id));
}

export async function createImportRule(db: Db, input: NewImportRule): Promise<Rule> {
  try {
    const [row] = await db
      .insert(importRules)
      .values({ pattern: input.pattern, accountId: input.account_id })
      .returning({ id: importRules.id, pattern: importRules.pattern, account_id: importRules.accountId });
    return row!;
  } catch (error) {
    if (sqlState(error) === '23503' && sqlConstraint(error) === 'import_rules_account_id_accounts_id_fk') throw invalid('no such account');
    throw error;
  }
}

export async function deleteImportRule(db: Db, id: number): Promise<void> {
  const gone = await db.delete(importRules).where(eq(importRules.id, id)).returning({ id: importRules.id });
  if (gone.length === 0) throw notFound('no such import rule');
}

/** The first rule (lowest id) whose pattern the description contains, case-insensitively. */
export function matchRule(rules: readonly Rule[], description: string): Rule | undefined {
  const text = foldCase(description);
  return rules.find((rule) => text.includes(foldCase(rule.pattern)));
}

/** Case folded as far as JavaScript can without a locale: composed, then lower case. */
export function foldCase(text: string): string {
  return text.normalize('NFC').toLowerCase();
}
