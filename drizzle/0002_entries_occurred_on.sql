-- Entries carry their transaction's date so that reports aggregate entries without a join (D7).
-- A composite foreign key keeps the copy equal to the header; existing entries are backfilled.
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_id_occurred_on_unique" UNIQUE("id","occurred_on");--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "occurred_on" date;--> statement-breakpoint
UPDATE "entries" SET "occurred_on" = "transactions"."occurred_on" FROM "transactions" WHERE "transactions"."id" = "entries"."transaction_id";--> statement-breakpoint
ALTER TABLE "entries" ALTER COLUMN "occurred_on" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "entries" DROP CONSTRAINT "entries_transaction_id_transactions_id_fk";--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_transaction_fk" FOREIGN KEY ("transaction_id","occurred_on") REFERENCES "public"."transactions"("id","occurred_on") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
DROP INDEX "entries_account_id_idx";--> statement-breakpoint
CREATE INDEX "entries_account_id_occurred_on_idx" ON "entries" USING btree ("account_id","occurred_on","transaction_id");
