-- D26 (issue 39): budgets and their lines.
CREATE TYPE "public"."budget_per" AS ENUM('month', 'period');--> statement-breakpoint
CREATE TABLE "budget_lines" (
	"budget_id" integer NOT NULL,
	"position" integer NOT NULL,
	"account_id" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"per" "budget_per" NOT NULL,
	"rollover" boolean DEFAULT false NOT NULL,
	CONSTRAINT "budget_lines_budget_id_position_pk" PRIMARY KEY("budget_id","position"),
	CONSTRAINT "budget_lines_account_once" UNIQUE("budget_id","account_id"),
	CONSTRAINT "budget_lines_amount" CHECK ("budget_lines"."amount_cents" >= 0),
	CONSTRAINT "budget_lines_rollover" CHECK (not "budget_lines"."rollover" or "budget_lines"."per" = 'month')
);
--> statement-breakpoint
CREATE TABLE "budgets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budgets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"from_month" date NOT NULL,
	"to_month" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budgets_months" CHECK (extract(day from "budgets"."from_month") = 1 and extract(day from "budgets"."to_month") = 1 and "budgets"."to_month" >= "budgets"."from_month")
);
--> statement-breakpoint
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_budget_id_budgets_id_fk" FOREIGN KEY ("budget_id") REFERENCES "public"."budgets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_lines_account_id_idx" ON "budget_lines" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "budgets_name_lower_unique" ON "budgets" USING btree (lower("name"));--> statement-breakpoint
-- D26: a budget's change records (subject `budget`). The check stays the cheap function call of
-- 0013 (its comment says why); the function gains the value, widening the rule, so no stored row
-- can fail it.
CREATE OR REPLACE FUNCTION ledger_change_subject_valid(subject text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN subject IN ('transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment', 'budget');
END;
$$;