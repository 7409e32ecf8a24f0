CREATE TABLE "attachments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "attachments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"transaction_id" integer NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by_email" text,
	CONSTRAINT "attachments_size" CHECK ("attachments"."size" = octet_length("attachments"."bytes"))
);
--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_subject";--> statement-breakpoint
CREATE INDEX "attachments_transaction_id_idx" ON "attachments" USING btree ("transaction_id","id");--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_subject" CHECK ("changes"."subject" in ('transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment'));