-- D27 (issue 41): SEPA direct debit: the creditor in settings (opt-in), collections and the people each collected.
CREATE TABLE "direct_debit_items" (
	"direct_debit_id" integer NOT NULL,
	"position" integer NOT NULL,
	"person_id" integer NOT NULL,
	"transaction_id" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"end_to_end_id" text NOT NULL,
	"debtor_name" text NOT NULL,
	"debtor_iban" text,
	"mandate_id" text,
	"mandate_signed_on" date,
	"remittance" text NOT NULL,
	CONSTRAINT "direct_debit_items_direct_debit_id_position_pk" PRIMARY KEY("direct_debit_id","position"),
	CONSTRAINT "direct_debit_items_person_once" UNIQUE("direct_debit_id","person_id"),
	CONSTRAINT "direct_debit_items_amount" CHECK ("direct_debit_items"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "direct_debits" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "direct_debits_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"collect_on" date NOT NULL,
	"message_id" text NOT NULL,
	"skipped" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "direct_debits_message_id" CHECK (char_length("direct_debits"."message_id") <= 35)
);
--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "sepa" jsonb;--> statement-breakpoint
ALTER TABLE "direct_debit_items" ADD CONSTRAINT "direct_debit_items_direct_debit_id_direct_debits_id_fk" FOREIGN KEY ("direct_debit_id") REFERENCES "public"."direct_debits"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "direct_debit_items" ADD CONSTRAINT "direct_debit_items_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "direct_debits" ADD CONSTRAINT "direct_debits_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "direct_debit_items_person_id_idx" ON "direct_debit_items" USING btree ("person_id");--> statement-breakpoint
CREATE INDEX "direct_debit_items_transaction_id_idx" ON "direct_debit_items" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "direct_debits_message_id_unique" ON "direct_debits" USING btree ("message_id");