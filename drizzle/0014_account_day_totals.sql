CREATE TABLE "account_day_totals" (
	"account_id" integer NOT NULL,
	"occurred_on" date NOT NULL,
	"total_cents" numeric NOT NULL,
	"entry_count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_day_totals" ADD CONSTRAINT "account_day_totals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_day_totals_account_id_occurred_on_idx" ON "account_day_totals" USING btree ("account_id","occurred_on");--> statement-breakpoint
-- D7, issue 31 item 5: account_day_totals is kept by the database itself, by three statement
-- triggers on entries, so that every writer (a post, a correction, a date moved by the foreign
-- key's ON UPDATE CASCADE, a delete by ON DELETE CASCADE, a restore, an import, a schedule, a
-- reconciliation, `ledger restore`) keeps it in its own transaction without code of its own.
-- Each statement adds one row per (account, day) it changed: its delta, new rows plus and old
-- rows minus. Insert-only, no upsert: two posts on the same account and day never wait for each
-- other on a row, and cannot deadlock. A statement whose deltas are all zero (reconciling changes
-- only reconciliation_id) writes nothing. These are AFTER triggers: the closed-period and
-- reconciled locks refuse a change before it stands, and a refused statement's rows here go with it.
CREATE FUNCTION ledger_day_totals_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_day_totals (account_id, occurred_on, total_cents, entry_count)
  SELECT account_id, occurred_on, sum(amount_cents), count(*)
  FROM day_totals_new GROUP BY account_id, occurred_on;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_day_totals_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_day_totals (account_id, occurred_on, total_cents, entry_count)
  SELECT account_id, occurred_on, -sum(amount_cents), -count(*)
  FROM day_totals_old GROUP BY account_id, occurred_on;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_day_totals_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_day_totals (account_id, occurred_on, total_cents, entry_count)
  SELECT account_id, occurred_on, sum(cents), sum(n)
  FROM (
    SELECT account_id, occurred_on, amount_cents::numeric AS cents, 1 AS n FROM day_totals_new
    UNION ALL
    SELECT account_id, occurred_on, -amount_cents::numeric, -1 FROM day_totals_old
  ) delta
  GROUP BY account_id, occurred_on
  HAVING sum(cents) <> 0 OR sum(n) <> 0;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- The triggers come before the backfill: creating them locks entries against writes until the
-- migration commits, so no entry is written between the backfill's read and the triggers.
CREATE TRIGGER entries_day_totals_insert
  AFTER INSERT ON entries
  REFERENCING NEW TABLE AS day_totals_new
  FOR EACH STATEMENT
  EXECUTE FUNCTION ledger_day_totals_inserted();
--> statement-breakpoint
CREATE TRIGGER entries_day_totals_update
  AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS day_totals_old NEW TABLE AS day_totals_new
  FOR EACH STATEMENT
  EXECUTE FUNCTION ledger_day_totals_updated();
--> statement-breakpoint
CREATE TRIGGER entries_day_totals_delete
  AFTER DELETE ON entries
  REFERENCING OLD TABLE AS day_totals_old
  FOR EACH STATEMENT
  EXECUTE FUNCTION ledger_day_totals_deleted();
--> statement-breakpoint
INSERT INTO account_day_totals (account_id, occurred_on, total_cents, entry_count)
SELECT account_id, occurred_on, sum(amount_cents), count(*) FROM entries GROUP BY account_id, occurred_on;
