import { createHash } from 'node:crypto';

// Issue 36 item 7: every PostgreSQL advisory-lock key the service takes, named here and nowhere
// else. An advisory lock is only a number: two uses picking the same one by accident would wait on
// each other, or one would take the other's guard for its own, and nothing in PostgreSQL tells
// them apart. tests/advisory-locks.test.ts checks that every number exported here is distinct.
//
// PostgreSQL keeps bigint keys (`pg_advisory_lock(k)`) and pairs of ints (`pg_advisory_lock(k, id)`,
// the per-account locks) apart, and keys are per database (the embedded cluster's presence locks are
// taken in its `postgres` database, the rest in the book's). They are distinct all the same, so that
// no reader has to remember either rule. A value written into a migration (a trigger taking it)
// cannot change without a migration.

/** Session lock while migrating (src/db/database.ts): two instances starting together migrate one after the other. */
export const MIGRATION_LOCK = 0x1ed6e5;

/**
 * The embedded cluster's `serve` (src/db/embedded.ts), a session lock in the cluster's `postgres`
 * database: held by the one `serve` of a cluster, so a second is refused with the holder's pid.
 */
export const EMBEDDED_SERVE_LOCK = 0x1ed6e6;

/**
 * The embedded cluster's admin commands hold it shared (in the `postgres` database); the last user
 * takes it exclusively before stopping the cluster, so nobody starts using it meanwhile.
 */
export const EMBEDDED_USE_LOCK = 0x1ed6e7;

/**
 * D20: the triggers of drizzle/0008 read `closed_through` under this lock held shared; a change of
 * the settings holds it exclusively, so a write racing a move of the date ends wholly before or
 * wholly after it. The value is written in that migration.
 */
export const CLOSED_THROUGH_LOCK = 20_020;

/** D22: the receipts' quotas are checked and the row written under one book-wide lock, so two uploads cannot both pass. */
export const ATTACHMENTS_LOCK = 20_022;

/**
 * D7 (issue 31 item 5): the fold of account_day_totals is tried under this lock; a second fold
 * (another instance's background run) finds it taken and does nothing, rather than deleting the
 * same rows behind the first one's row locks only to find them gone.
 */
export const DAY_TOTALS_COMPACTION_LOCK = 20_023;

/**
 * Dynamic client registration (RFC 7591): registrations run one at a time, so the cap of 20 holds
 * under races. It was 0x1ed6e6 until issue 36, the number of EMBEDDED_SERVE_LOCK: harmless only
 * because the two are taken in different databases.
 */
export const CLIENT_REGISTRATION_LOCK = 20_024;

/** D17, first int of a pair whose second is the account's id: an account's reconciliations run one after the other. */
export const RECONCILIATION_LOCK = 20_021;

/** D16, first int of a pair whose second is the account's id: an account's imports run one after the other. */
export const IMPORT_LOCK = 16_016;

/**
 * D21, first int of a pair whose second is the user's id: one keyed request at a time trims the
 * user's kept answers down to the cap; another finding it taken leaves the trim to it.
 */
export const IDEMPOTENCY_TRIM_LOCK = 20_025;

/**
 * D27: collections by direct debit are made one at a time, each reading what people owe after the
 * last one committed, so two at once cannot collect the same dues twice.
 */
export const DIRECT_DEBIT_LOCK = 20_027;

/**
 * D21: the lock of one user's Idempotency-Key, a bigint as a decimal string (cast it `::bigint`):
 * the first 8 bytes of SHA-256 over user and key. A collision with another key, or with one of the
 * fixed keys above, is as likely as guessing a 64-bit number.
 */
export function idempotencyKeyLock(userId: number, key: string): string {
  return createHash('sha256').update(`idempotency-key\n${userId}\n${key}`).digest().readBigInt64BE(0).toString();
}
