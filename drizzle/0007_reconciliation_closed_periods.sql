CREATE TABLE "import_lines" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "import_lines_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"transaction_id" integer NOT NULL,
	"occurred_on" date NOT NULL,
	"amount_cents" bigint NOT NULL,
	"description_key" text NOT NULL,
	"linked" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reconciliations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reconciliations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"statement_date" date NOT NULL,
	"statement_balance_cents" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by_email" text
);
--> statement-breakpoint
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_name_unique";--> statement-breakpoint
-- D6: names are unique without regard to case. A book that already holds case twins still starts:
-- each later twin (by id) is renamed by appending " (2)", " (3)" … (a name that is taken counts
-- too, and the name is cut to stay within 100 characters), one notice per rename, which the
-- migrating connection prints as one line.
DO $$
DECLARE
  twin record;
  n integer;
  candidate text;
BEGIN
  FOR twin IN
    SELECT a.id, a.name FROM accounts a
    WHERE EXISTS (SELECT 1 FROM accounts b WHERE lower(b.name) = lower(a.name) AND b.id < a.id)
    ORDER BY a.id
  LOOP
    n := 2;
    LOOP
      candidate := left(twin.name, 100 - length(' (' || n || ')')) || ' (' || n || ')';
      EXIT WHEN NOT EXISTS (SELECT 1 FROM accounts WHERE lower(name) = lower(candidate));
      n := n + 1;
    END LOOP;
    UPDATE accounts SET name = candidate WHERE id = twin.id;
    RAISE NOTICE 'ledger: account % renamed from "%" to "%": names are unique without regard to case (D6)', twin.id, twin.name, candidate;
  END LOOP;
END;
$$;--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_subject";--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "reconciliation_id" integer;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "currency" text DEFAULT 'EUR' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "closed_through" date;--> statement-breakpoint
ALTER TABLE "import_lines" ADD CONSTRAINT "import_lines_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reconciliations" ADD CONSTRAINT "reconciliations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_lines_account_id_occurred_on_idx" ON "import_lines" USING btree ("account_id","occurred_on");--> statement-breakpoint
CREATE INDEX "import_lines_transaction_id_idx" ON "import_lines" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "reconciliations_account_id_idx" ON "reconciliations" USING btree ("account_id","statement_date","id");--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_reconciliation_id_reconciliations_id_fk" FOREIGN KEY ("reconciliation_id") REFERENCES "public"."reconciliations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_name_lower_unique" ON "accounts" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "entries_reconciliation_id_idx" ON "entries" USING btree ("reconciliation_id") WHERE "entries"."reconciliation_id" is not null;--> statement-breakpoint
CREATE INDEX "entries_reconciled_transaction_idx" ON "entries" USING btree ("transaction_id") WHERE "entries"."reconciliation_id" is not null;--> statement-breakpoint
CREATE INDEX "import_references_transaction_id_idx" ON "import_references" USING btree ("transaction_id");--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_subject" CHECK ("changes"."subject" in ('transaction', 'account', 'settings', 'reconciliation'));--> statement-breakpoint
ALTER TABLE "settings" ADD CONSTRAINT "settings_currency" CHECK ("settings"."currency" ~ '^[A-Z]{3}$');