-- Issue 6/6: the transaction list (a date range, newest first, with each transaction's lines) reads
-- only these two indexes once vacuum has marked the pages all-visible.
DROP INDEX "entries_transaction_id_idx";--> statement-breakpoint
DROP INDEX "transactions_occurred_on_id_idx";--> statement-breakpoint
CREATE INDEX "entries_transaction_id_idx" ON "entries" USING btree ("transaction_id","id","account_id","amount_cents");--> statement-breakpoint
CREATE INDEX "transactions_occurred_on_id_idx" ON "transactions" USING btree ("occurred_on" DESC NULLS LAST,"id" DESC NULLS LAST,"created_by","description");