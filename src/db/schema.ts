import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  type AnyPgColumn,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

// The whole schema of the spec is designed here at once (issue 1/6), so that later issues add
// behaviour, not tables. Every timestamp is timestamptz; ids that are secrets are stored only as
// SHA-256 hex digests (spec: Tokens and codes; D5).

/** The largest id an integer column holds: a larger id names no row. */
export const INT4_MAX = 2 ** 31 - 1;

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const tstz = (name: string) => timestamp(name, { withTimezone: true });

export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  /** Trimmed and lower-cased before it is stored or looked up. */
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: createdAt(),
  lastSeenAt: tstz('last_seen_at'),
});

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 hex of the 256-bit cookie value; the value itself is never stored. */
    idHash: text('id_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mfaComplete: boolean('mfa_complete').notNull().default(false),
    /** Fixed at creation and at elevation; use never extends it. */
    expiresAt: tstz('expires_at').notNull(),
    deviceAttempts: integer('device_attempts').notNull().default(0),
    /** The one outstanding WebAuthn challenge of this session (D3: single-use, 5 minutes). */
    challenge: text('challenge'),
    challengePurpose: text('challenge_purpose', { enum: ['register', 'authenticate'] }),
    challengeExpiresAt: tstz('challenge_expires_at'),
    createdAt: createdAt(),
  },
  (t) => [index('sessions_user_id_idx').on(t.userId)],
);

export const passkeys = pgTable(
  'passkeys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** base64url credential id as the browser reports it. */
    credentialId: text('credential_id').notNull().unique(),
    /** base64url COSE public key. */
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    name: text('name').notNull(),
    createdAt: createdAt(),
    lastUsedAt: tstz('last_used_at'),
  },
  (t) => [index('passkeys_user_id_idx').on(t.userId)],
);

/** Password throttle state, keyed by normalised email whether or not the user exists (D4). */
export const loginThrottle = pgTable('login_throttle', {
  email: text('email').primaryKey(),
  failures: integer('failures').notNull().default(0),
  blockedUntil: tstz('blocked_until'),
  updatedAt: tstz('updated_at').notNull().defaultNow(),
});

export const oauthClients = pgTable(
  'oauth_clients',
  {
    /**
     * `dyn_…` for dynamic clients; `ledger-cli` and `ledger-desktop` are seeded by a migration; an
     * `https://` URL for a client that publishes a Client ID Metadata Document (D18).
     */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    dynamic: boolean('dynamic').notNull(),
    redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
    createdAt: createdAt(),
    firstUsedAt: tstz('first_used_at'),
    lastUsedAt: tstz('last_used_at'),
    /**
     * D18: when name and redirect URIs were last copied from the client's metadata document (the
     * document itself is cached in memory; this row exists for the grants that reference it).
     * Null for every client without a document. Nullable, so that backups made before it restore.
     */
    metadataUpdatedAt: tstz('metadata_updated_at'),
  },
  (t) => [
    check('oauth_clients_metadata_document', sql`(${t.metadataUpdatedAt} is not null) = (${t.id} like 'https://%')`),
  ],
);

export const tokenKind = pgEnum('token_kind', ['access', 'refresh']);

/**
 * D25: a grant is the family of tokens one authorization (a code redeemed, a device grant claimed)
 * issued, through every rotation: the row that rotation and revocation of the family lock, so
 * that they are serialised whatever the number of instances, and whose `revoked_at` refuses
 * every later rotation (RFC 9700 §4.14.2). Its id is the Connection's `grant_id`.
 */
export const grants = pgTable(
  'grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    revokedAt: tstz('revoked_at'),
  },
  (t) => [index('grants_user_id_idx').on(t.userId), index('grants_client_id_idx').on(t.clientId)],
);

export const tokens = pgTable(
  'tokens',
  {
    /** SHA-256 hex of the token; also the Connection id (D5). */
    hash: text('hash').primaryKey(),
    kind: tokenKind('kind').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    /** The token this one was minted from: a refresh token's predecessor, an access token's refresh token. */
    parentHash: text('parent_hash'),
    /** D25: the grant (family) of an OAuth token; null for a minted token, which has none. */
    grantId: uuid('grant_id').references(() => grants.id, { onDelete: 'cascade' }),
    label: text('label'),
    /** RFC 8707 audience: always API_ORIGIN at issue time. */
    audience: text('audience').notNull(),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
    /** Set when a refresh token is rotated (spec: Refresh token states). */
    retiredAt: tstz('retired_at'),
    revokedAt: tstz('revoked_at'),
    lastUsedAt: tstz('last_used_at'),
  },
  (t) => [
    index('tokens_user_id_idx').on(t.userId),
    index('tokens_parent_hash_idx').on(t.parentHash),
    index('tokens_client_id_idx').on(t.clientId),
    index('tokens_grant_id_idx').on(t.grantId),
    check('tokens_refresh_has_grant', sql`${t.kind} = 'access' or ${t.grantId} is not null`),
  ],
);

export const authorizationCodes = pgTable(
  'authorization_codes',
  {
    /** SHA-256 hex of the code; a row exists only while the code is live. */
    hash: text('hash').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [index('authorization_codes_client_id_idx').on(t.clientId)],
);

export const deviceGrantStatus = pgEnum('device_grant_status', ['pending', 'approved', 'declined']);

export const deviceGrants = pgTable(
  'device_grants',
  {
    /** SHA-256 hex of the device_code, which is never shown to humans. */
    deviceCodeHash: text('device_code_hash').primaryKey(),
    /** `XXXX-XXXX` from the 30-symbol alphabet. */
    userCode: text('user_code').notNull().unique(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    status: deviceGrantStatus('status').notNull().default('pending'),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The session that approved it: re-approval by that session is free (spec: Device grant). */
    approvedBySessionHash: text('approved_by_session_hash'),
    lastPolledAt: tstz('last_polled_at'),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [index('device_grants_client_id_idx').on(t.clientId)],
);

/** Enum order is the order of GET /accounts ("ordered by kind then name"): the balance-sheet order. */
export const accountKind = pgEnum('account_kind', ['asset', 'liability', 'equity', 'income', 'expense']);

export const accounts = pgTable(
  'accounts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    kind: accountKind('kind').notNull(),
    createdAt: createdAt(),
  },
  // D6: names are unique without regard to case (`Cash box` and `cash BOX` cannot both exist).
  (t) => [uniqueIndex('accounts_name_lower_unique').on(sql`lower(${t.name})`)],
);

export const bookStyle = pgEnum('book_style', ['personal', 'club']);

/** D27: Settings' `sepa`, as PUT /settings checked it. */
export interface SepaCreditor {
  creditor_name: string;
  creditor_iban: string;
  creditor_bic?: string;
  creditor_id: string;
}

/** The single instance-wide settings record: the check pins it to one row, seeded by a migration. */
export const settings = pgTable(
  'settings',
  {
    id: integer('id').primaryKey().default(1),
    bookStyle: bookStyle('book_style').notNull().default('personal'),
    /** D20: an ISO 4217 code whose minor unit is two decimals; the web app's money and the exports' default commodity. */
    currency: text('currency').notNull().default('EUR'),
    /**
     * D20: nothing dated on or before it may be created, corrected, deleted or restored; null while
     * no period is closed. Enforced by triggers (migration 0007), read under an advisory lock.
     */
    closedThrough: date('closed_through', { mode: 'string' }),
    /** D27: the club's creditor details for SEPA direct debit; null (absent from Settings) until set. */
    sepa: jsonb('sepa').$type<SepaCreditor>(),
  },
  (t) => [
    check('settings_single_row', sql`${t.id} = 1`),
    check('settings_currency', sql`${t.currency} ~ '^[A-Z]{3}$'`),
  ],
);

export const transactions = pgTable(
  'transactions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    occurredOn: date('occurred_on', { mode: 'string' }).notNull(),
    description: text('description').notNull(),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    /**
     * The list's order. The trailing columns are the list's other reads, so a date range is read
     * from the index alone once vacuum has marked the pages all-visible (issue 6/6: one day of a
     * 100,000-transaction book). (occurred_on, id) is unique, so they never take part in ordering.
     * A description is at most 500 characters (2,000 bytes), under the 2,704-byte btree limit.
     */
    index('transactions_occurred_on_id_idx').on(t.occurredOn.desc(), t.id.desc(), t.createdBy, t.description),
    // The target of the entries' composite foreign key below.
    unique('transactions_id_occurred_on_unique').on(t.id, t.occurredOn),
  ],
);

export const entries = pgTable(
  'entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    transactionId: integer('transaction_id').notNull(),
    /**
     * The transaction's date, copied so that reports filter and sum entries without joining their
     * transactions (D7: aggregates over a million entries). The composite foreign key keeps the
     * copy equal to the header's date.
     */
    occurredOn: date('occurred_on', { mode: 'string' }).notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    /** Signed: positive is a debit, negative a credit (D6). |amount| ≤ 10^15 keeps every sum exact. */
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    /**
     * D20: the reconciliation that proved this entry against a statement; null while unreconciled.
     * A reconciled entry is fixed by value (a trigger refuses changing or deleting it); undoing
     * the reconciliation sets this back to null.
     */
    reconciliationId: integer('reconciliation_id').references((): AnyPgColumn => reconciliations.id, { onDelete: 'set null' }),
  },
  (t) => [
    foreignKey({
      name: 'entries_transaction_fk',
      columns: [t.transactionId, t.occurredOn],
      foreignColumns: [transactions.id, transactions.occurredOn],
    })
      .onDelete('cascade')
      .onUpdate('cascade'),
    // A transaction's lines in their order, with the columns the list shows: read from the index alone.
    index('entries_transaction_id_idx').on(t.transactionId, t.id, t.accountId, t.amountCents),
    index('entries_account_id_occurred_on_idx').on(t.accountId, t.occurredOn, t.transactionId),
    // D20: only reconciled entries are indexed: an undo finds its entries, a list marks its transactions.
    index('entries_reconciliation_id_idx').on(t.reconciliationId).where(sql`${t.reconciliationId} is not null`),
    index('entries_reconciled_transaction_idx').on(t.transactionId).where(sql`${t.reconciliationId} is not null`),
  ],
);

/**
 * D7, issue 31 item 5: the sum and count of each account's entries per day, so that the balance
 * sheet and the income statement add up days instead of a million entries. Derived, like an
 * index: kept by the statement triggers on `entries` (drizzle/0014), so that no writer of entries
 * needs code of its own, and left out of backups (a restore rebuilds it through the same
 * triggers). Insert-only deltas with no unique key: posts touching the same account and day never
 * wait for each other on a row lock; the figure of an (account, day) is the sum of its rows, which
 * compactDayTotals (src/book/day-totals.ts) folds into one row now and then. `total_cents` is
 * numeric because a day's sum of bigints can exceed a bigint.
 */
export const accountDayTotals = pgTable(
  'account_day_totals',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    occurredOn: date('occurred_on', { mode: 'string' }).notNull(),
    totalCents: numeric('total_cents').notNull(),
    entryCount: integer('entry_count').notNull(),
  },
  // By account first: the income statement (its accounts' days in a period) and a register's
  // opening balance (one account's days before `from`) read ranges of it; the balance sheet reads
  // the whole table either way (EXPLAIN at 1,000,000 entries, README "Reports at 1M entries").
  (t) => [index('account_day_totals_account_id_occurred_on_idx').on(t.accountId, t.occurredOn)],
);

/**
 * D20: an account proved against a bank statement: the entries marked with this id came, with
 * those reconciled before, to `statement_balance_cents` (natural sign, D6) on `statement_date`.
 * The author's email is kept as it was, like the change log's.
 */
export const reconciliations = pgTable(
  'reconciliations',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    statementDate: date('statement_date', { mode: 'string' }).notNull(),
    statementBalanceCents: bigint('statement_balance_cents', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
    createdByEmail: text('created_by_email'),
  },
  // An account's reconciliations in order: the latest is the last by (statement_date, id).
  (t) => [index('reconciliations_account_id_idx').on(t.accountId, t.statementDate, t.id)],
);

/**
 * D15: the change log. One record per successful create, update, delete or restore of a
 * transaction or account, and per settings change, written in the same database transaction as
 * the change by the repository functions of src/book/ (the only writers of ledger rows). `before`
 * and `after` are the full read shapes. Records are never changed or deleted by any route; the
 * actor's email is kept as it was, so a removed user's records stay attributed.
 */
export const changes = pgTable(
  'changes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actorEmail: text('actor_email'),
    /** D21: `schedule` for a transaction a schedule posted by itself. */
    via: text('via', { enum: ['session', 'token', 'cli', 'schedule', 'dues'] }).notNull(),
    clientId: text('client_id'),
    subject: text('subject', {
      enum: ['transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget', 'person', 'dues_plan', 'direct_debit'],
    }).notNull(),
    subjectId: integer('subject_id'),
    action: text('action', { enum: ['create', 'update', 'delete', 'restore'] }).notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    /** D21: the schedule that posted the transaction (via `schedule`); null otherwise. No foreign key: the record outlives it. */
    scheduleId: integer('schedule_id'),
  },
  (t) => [
    check('changes_via', sql`${t.via} in ('session', 'token', 'cli', 'schedule', 'dues')`),
    check(
      'changes_subject',
      sql`${t.subject} in ('transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget', 'person', 'dues_plan', 'direct_debit')`,
    ),
    check('changes_action', sql`${t.action} in ('create', 'update', 'delete', 'restore')`),
    check('changes_subject_id', sql`(${t.subject} = 'settings') = (${t.subjectId} is null)`),
    // The history of one transaction or account, newest first; and the last delete to restore from.
    index('changes_subject_idx').on(t.subject, t.subjectId, t.id),
  ],
);

/**
 * D16: the rules that book a statement line against a counter account: `pattern` is a
 * case-insensitive substring of the line's description; the lowest id that matches wins. A rule
 * goes with its account when that account is deleted.
 */
export const importRules = pgTable('import_rules', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  pattern: text('pattern').notNull(),
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
});

/**
 * D16: the bank references (OFX FITID, camt AcctSvcrRef or NtryRef) imported on an account, so a
 * line seen before is a duplicate even when its transaction was deleted since (deliberately: the
 * person removed it). `transaction_id` names the transaction the line became; no foreign key, for
 * that reason (a restore brings the same id back).
 */
export const importReferences = pgTable(
  'import_references',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    reference: text('reference').notNull(),
    transactionId: integer('transaction_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.reference] }),
    // D16: a transaction an import created is never offered as a hand entry to match.
    index('import_references_transaction_id_idx').on(t.transactionId),
  ],
);

/**
 * D16: every statement line imported from now on, created or linked to a transaction typed by
 * hand (`linked`). It marks the transactions imports made or took, so none is offered as a hand
 * entry again, and keeps a linked line's own date, amount and normalised description, so that the
 * next import of the same statement finds the line as a duplicate though the hand entry reads
 * otherwise. Like import_references, no foreign key to the transaction: a restore brings the id back.
 */
export const importLines = pgTable(
  'import_lines',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    transactionId: integer('transaction_id').notNull(),
    occurredOn: date('occurred_on', { mode: 'string' }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    /** The line's description normalised as D16's duplicate test compares it. */
    descriptionKey: text('description_key').notNull(),
    linked: boolean('linked').notNull(),
    /**
     * The format of the statement the line came in (D16's `format`); null for lines imported
     * before it was recorded (issue 37): a line of another format, or of one not recorded, with a
     * new reference is still a duplicate of the transaction this line made or took.
     */
    format: text('format', { enum: ['csv', 'ofx', 'camt053'] }),
  },
  (t) => [
    index('import_lines_account_id_occurred_on_idx').on(t.accountId, t.occurredOn),
    index('import_lines_transaction_id_idx').on(t.transactionId),
    check('import_lines_format', sql`${t.format} in ('csv', 'ofx', 'camt053')`),
  ],
);

/**
 * Issue 25 item 14 (D5): the API_ORIGIN of the last `ledger serve` started on this database, the
 * audience its bearer tokens must name. `ledger mint-token` audiences its token to it rather than
 * to an API_ORIGIN of its own that the server would refuse. One row, written at each start.
 */
export const serveOrigin = pgTable(
  'serve_origin',
  {
    id: integer('id').primaryKey().default(1),
    apiOrigin: text('api_origin').notNull(),
    recordedAt: tstz('recorded_at').notNull().defaultNow(),
  },
  (t) => [check('serve_origin_single_row', sql`${t.id} = 1`)],
);

export const scheduleEvery = pgEnum('schedule_every', ['week', 'month', 'year']);
export const scheduleMode = pgEnum('schedule_mode', ['post', 'remind']);

/** A schedule's line as saved: the account's name then, shown if the account is deleted since. */
export interface ScheduleLine {
  account_id: number;
  account_name: string;
  amount_cents: number;
}

/**
 * D21: what comes back. Its entries are a JSON copy, not rows with foreign keys: a schedule's
 * entries do not hold an account (D15's DELETE /accounts/{id} ignores them), and an occurrence
 * naming a deleted account is blocked, not posted. Belongs to the book: survives its creator.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    description: text('description').notNull(),
    entries: jsonb('entries').$type<ScheduleLine[]>().notNull(),
    startOn: date('start_on', { mode: 'string' }).notNull(),
    every: scheduleEvery('every').notNull(),
    interval: integer('interval').notNull().default(1),
    untilOn: date('until_on', { mode: 'string' }),
    mode: scheduleMode('mode').notNull(),
    /** D21: occurrences before this date count as handled (a PUT sets it to next_on at that moment); null: none. */
    handledBefore: date('handled_before', { mode: 'string' }),
    /**
     * D21: the first occurrence neither posted nor skipped (null: none left), kept by every writer
     * under the schedule's row lock: the posting job's starting point and the list's order.
     */
    nextOn: date('next_on', { mode: 'string' }),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    check('schedules_interval', sql`${t.interval} between 1 and 99`),
    check('schedules_until', sql`${t.untilOn} is null or ${t.untilOn} >= ${t.startOn}`),
    index('schedules_next_on_idx').on(t.nextOn),
  ],
);

export const occurrenceOutcome = pgEnum('occurrence_outcome', ['posted', 'skipped']);

/**
 * D21: the occurrences handled, one row per (schedule, date): the key that decides, whatever the
 * number of instances or restarts, that an occurrence is posted at most once. `transaction_id` is
 * the transaction it posted (no foreign key: a deleted transaction leaves its occurrence handled).
 */
export const scheduleOccurrences = pgTable(
  'schedule_occurrences',
  {
    scheduleId: integer('schedule_id')
      .notNull()
      .references(() => schedules.id, { onDelete: 'cascade' }),
    occursOn: date('occurs_on', { mode: 'string' }).notNull(),
    outcome: occurrenceOutcome('outcome').notNull(),
    transactionId: integer('transaction_id'),
    handledAt: tstz('handled_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scheduleId, t.occursOn] })],
);

/**
 * D21: the first answer to a POST sent with `Idempotency-Key`, kept 24 hours per user and key.
 * Written in the same database transaction as what the POST wrote, so a key is never kept for a
 * write that did not commit, nor a write committed without its key.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    method: text('method').notNull(),
    /** Path and query as sent. */
    path: text('path').notNull(),
    bodySha256: text('body_sha256').notNull(),
    status: integer('status').notNull(),
    contentType: text('content_type'),
    body: text('body').notNull(),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index('idempotency_keys_expires_at_idx').on(t.expiresAt)],
);

/** PostgreSQL's bytea, as a Node Buffer (postgres.js reads and writes bytea as Buffer). */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * D22: receipts. The bytes live in the database (in every backup with the rest of the book), one
 * row per file of at most 10 MiB. No foreign key to the transaction: a deleted transaction keeps
 * its receipts for D15's restore. `created_by_email` is kept as it was, like the change log's.
 * Migration 0015 (issue 36): `bytes` stored EXTERNAL (read in pieces), a row never altered, and
 * its removal refused in a closed period or on a reconciled transaction (D20), by triggers.
 */
export const attachments = pgTable(
  'attachments',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    transactionId: integer('transaction_id').notNull(),
    name: text('name').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    bytes: bytea('bytes').notNull(),
    createdAt: createdAt(),
    createdByEmail: text('created_by_email'),
  },
  (t) => [
    index('attachments_transaction_id_idx').on(t.transactionId, t.id),
    check('attachments_size', sql`${t.size} = octet_length(${t.bytes})`),
  ],
);

export const budgetPer = pgEnum('budget_per', ['month', 'period']);

/**
 * D26: a plan for a run of whole months (`from_month` and `to_month` are their first days, at most
 * 36 months). Names are unique without regard to case, as accounts' are. Budgets may overlap.
 */
export const budgets = pgTable(
  'budgets',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    fromMonth: date('from_month', { mode: 'string' }).notNull(),
    toMonth: date('to_month', { mode: 'string' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('budgets_name_lower_unique').on(sql`lower(${t.name})`),
    check('budgets_months', sql`extract(day from ${t.fromMonth}) = 1 and extract(day from ${t.toMonth}) = 1 and ${t.toMonth} >= ${t.fromMonth}`),
  ],
);

/**
 * D26: a budget's lines in the order sent (`position`). The foreign key to the account (no cascade)
 * is the database's last word on "an account a budget line names cannot be deleted"; the 409 that
 * names the budget is said first by src/book/accounts.ts.
 */
export const budgetLines = pgTable(
  'budget_lines',
  {
    budgetId: integer('budget_id')
      .notNull()
      .references(() => budgets.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    per: budgetPer('per').notNull(),
    rollover: boolean('rollover').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.budgetId, t.position] }),
    unique('budget_lines_account_once').on(t.budgetId, t.accountId),
    index('budget_lines_account_id_idx').on(t.accountId),
    check('budget_lines_amount', sql`${t.amountCents} >= 0`),
    check('budget_lines_rollover', sql`not ${t.rollover} or ${t.per} = 'month'`),
  ],
);

export const duesEvery = pgEnum('dues_every', ['month', 'quarter', 'year']);

/**
 * D27: a dues plan ("Membership, 5.00 a month"). Each occurrence (D21's date rules, `quarter` =
 * every 3 months) charges every person following it who is a member on that day. The income
 * account is in use while the plan exists (no cascade; the 409 naming the plan is said first).
 */
export const duesPlans = pgTable(
  'dues_plans',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    every: duesEvery('every').notNull(),
    startOn: date('start_on', { mode: 'string' }).notNull(),
    untilOn: date('until_on', { mode: 'string' }),
    incomeAccountId: integer('income_account_id')
      .notNull()
      .references(() => accounts.id),
    /** The author of the transactions the plan posts (D27); null once that user is removed. */
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('dues_plans_name_lower_unique').on(sql`lower(${t.name})`),
    check('dues_plans_amount', sql`${t.amountCents} > 0`),
    check('dues_plans_until', sql`${t.untilOn} is null or ${t.untilOn} >= ${t.startOn}`),
    index('dues_plans_income_account_id_idx').on(t.incomeAccountId),
  ],
);

/**
 * D27: someone money is owed by or to (a member, a family member), not a user. Each has its own
 * asset account, created, renamed and deleted with the person in one database transaction; the
 * account is in use while the person exists (no cascade). Email, IBAN, mandate and note are
 * personal data: never in a change record, cleared by `forget`.
 */
export const people = pgTable(
  'people',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    email: text('email'),
    /** ISO 13616, checked, stored without spaces in capitals. */
    iban: text('iban'),
    memberNo: text('member_no'),
    joinedOn: date('joined_on', { mode: 'string' }),
    leftOn: date('left_on', { mode: 'string' }),
    mandateId: text('mandate_id'),
    mandateSignedOn: date('mandate_signed_on', { mode: 'string' }),
    duesPlanId: integer('dues_plan_id').references(() => duesPlans.id),
    /**
     * D27: the plan's occurrences before this date count as handled for this person: set to the
     * day a person's plan changes, so a move from "Youth" to "Adult" never charges the past twice.
     * Null: charged from `joined_on` (or the plan's start).
     */
    duesFrom: date('dues_from', { mode: 'string' }),
    note: text('note'),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    createdAt: createdAt(),
  },
  (t) => [
    unique('people_account_id_unique').on(t.accountId),
    uniqueIndex('people_member_no_unique').on(t.memberNo),
    index('people_dues_plan_id_idx').on(t.duesPlanId),
    index('people_iban_idx').on(t.iban),
    check('people_left_after_joined', sql`${t.leftOn} is null or ${t.joinedOn} is null or ${t.leftOn} >= ${t.joinedOn}`),
    check('people_mandate_whole', sql`(${t.mandateId} is null) = (${t.mandateSignedOn} is null)`),
  ],
);

/**
 * D27: the dues occurrences handled, one row per (plan, person, date): the database key that
 * decides, whatever the instances, restarts or retries, that a charge is posted at most once.
 * `transaction_id` has no foreign key: a deleted dues transaction leaves its occurrence handled.
 */
export const duesOccurrences = pgTable(
  'dues_occurrences',
  {
    planId: integer('plan_id')
      .notNull()
      .references(() => duesPlans.id, { onDelete: 'cascade' }),
    personId: integer('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    occursOn: date('occurs_on', { mode: 'string' }).notNull(),
    transactionId: integer('transaction_id'),
    handledAt: tstz('handled_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.personId, t.occursOn] }), index('dues_occurrences_person_id_idx').on(t.personId)],
);

/**
 * D27: a collection by SEPA direct debit: the record of the bank file (pain.008) and of the
 * transactions that moved what each person owed to "Direct debits in transit". Deleting it deletes
 * those transactions (D20's locks apply) and the people owe again.
 */
export const directDebits = pgTable(
  'direct_debits',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    collectOn: date('collect_on', { mode: 'string' }).notNull(),
    /** The pain.008 message id (GrpHdr/MsgId), at most 35 characters, unique: the bank refuses a file it has seen. */
    messageId: text('message_id').notNull(),
    /** Who was left out and why, as the collection answered it: `[{person_id, reason}]`. */
    skipped: jsonb('skipped').$type<{ person_id: number; reason: 'no_iban' | 'no_mandate' | 'mandate_after_collect_on' }[]>().notNull().default([]),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('direct_debits_message_id_unique').on(t.messageId), check('direct_debits_message_id', sql`char_length(${t.messageId}) <= 35`)],
);

/**
 * D27: one person collected: the transaction, and what the bank file says of them as it was at
 * collection (the debtor's name, IBAN and mandate in the EPC's characters, the remittance text),
 * so the file stays the one the bank was given. `forget` clears the IBAN and mandate here too.
 */
export const directDebitItems = pgTable(
  'direct_debit_items',
  {
    directDebitId: integer('direct_debit_id')
      .notNull()
      .references(() => directDebits.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    personId: integer('person_id')
      .notNull()
      .references(() => people.id),
    transactionId: integer('transaction_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    endToEndId: text('end_to_end_id').notNull(),
    debtorName: text('debtor_name').notNull(),
    debtorIban: text('debtor_iban'),
    mandateId: text('mandate_id'),
    mandateSignedOn: date('mandate_signed_on', { mode: 'string' }),
    remittance: text('remittance').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.directDebitId, t.position] }),
    unique('direct_debit_items_person_once').on(t.directDebitId, t.personId),
    index('direct_debit_items_person_id_idx').on(t.personId),
    index('direct_debit_items_transaction_id_idx').on(t.transactionId),
    check('direct_debit_items_amount', sql`${t.amountCents} > 0`),
  ],
);

export type User = typeof users.$inferSelect;
export type Person = typeof people.$inferSelect;
export type DuesPlan = typeof duesPlans.$inferSelect;
export type DirectDebit = typeof directDebits.$inferSelect;
export type Account = typeof accounts.$inferSelect;
export type AccountKind = (typeof accountKind.enumValues)[number];
export type BookStyle = (typeof bookStyle.enumValues)[number];
export type Token = typeof tokens.$inferSelect;
export type Reconciliation = typeof reconciliations.$inferSelect;
