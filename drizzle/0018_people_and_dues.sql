-- D27 (issue 40): people, dues plans and the dues occurrences handled.
CREATE TYPE "public"."dues_every" AS ENUM('month', 'quarter', 'year');--> statement-breakpoint
CREATE TABLE "dues_occurrences" (
	"plan_id" integer NOT NULL,
	"person_id" integer NOT NULL,
	"occurs_on" date NOT NULL,
	"transaction_id" integer,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dues_occurrences_plan_id_person_id_occurs_on_pk" PRIMARY KEY("plan_id","person_id","occurs_on")
);
--> statement-breakpoint
CREATE TABLE "dues_plans" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dues_plans_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"every" "dues_every" NOT NULL,
	"start_on" date NOT NULL,
	"until_on" date,
	"income_account_id" integer NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dues_plans_amount" CHECK ("dues_plans"."amount_cents" > 0),
	CONSTRAINT "dues_plans_until" CHECK ("dues_plans"."until_on" is null or "dues_plans"."until_on" >= "dues_plans"."start_on")
);
--> statement-breakpoint
CREATE TABLE "people" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "people_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"email" text,
	"iban" text,
	"member_no" text,
	"joined_on" date,
	"left_on" date,
	"mandate_id" text,
	"mandate_signed_on" date,
	"dues_plan_id" integer,
	"dues_from" date,
	"note" text,
	"account_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "people_account_id_unique" UNIQUE("account_id"),
	CONSTRAINT "people_left_after_joined" CHECK ("people"."left_on" is null or "people"."joined_on" is null or "people"."left_on" >= "people"."joined_on"),
	CONSTRAINT "people_mandate_whole" CHECK (("people"."mandate_id" is null) = ("people"."mandate_signed_on" is null))
);
--> statement-breakpoint
ALTER TABLE "dues_occurrences" ADD CONSTRAINT "dues_occurrences_plan_id_dues_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."dues_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dues_occurrences" ADD CONSTRAINT "dues_occurrences_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dues_plans" ADD CONSTRAINT "dues_plans_income_account_id_accounts_id_fk" FOREIGN KEY ("income_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dues_plans" ADD CONSTRAINT "dues_plans_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "people" ADD CONSTRAINT "people_dues_plan_id_dues_plans_id_fk" FOREIGN KEY ("dues_plan_id") REFERENCES "public"."dues_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "people" ADD CONSTRAINT "people_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dues_occurrences_person_id_idx" ON "dues_occurrences" USING btree ("person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dues_plans_name_lower_unique" ON "dues_plans" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "dues_plans_income_account_id_idx" ON "dues_plans" USING btree ("income_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "people_member_no_unique" ON "people" USING btree ("member_no");--> statement-breakpoint
CREATE INDEX "people_dues_plan_id_idx" ON "people" USING btree ("dues_plan_id");--> statement-breakpoint
CREATE INDEX "people_iban_idx" ON "people" USING btree ("iban");--> statement-breakpoint
-- D27: change records of people and dues plans (subjects `person`, `dues_plan`; `direct_debit`
-- for the collections of the same decision), and `via: "dues"` for the charges a plan posts by
-- itself. The checks stay the cheap function calls of 0013 (its comment says why); the functions
-- gain the values, widening the rules, so no stored row can fail them.
CREATE OR REPLACE FUNCTION ledger_change_via_valid(via text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN via IN ('session', 'token', 'cli', 'schedule', 'dues');
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledger_change_subject_valid(subject text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN subject IN ('transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget', 'person', 'dues_plan', 'direct_debit');
END;
$$;