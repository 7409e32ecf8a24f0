CREATE TYPE "public"."occurrence_outcome" AS ENUM('posted', 'skipped');--> statement-breakpoint
CREATE TYPE "public"."schedule_every" AS ENUM('week', 'month', 'year');--> statement-breakpoint
CREATE TYPE "public"."schedule_mode" AS ENUM('post', 'remind');--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" integer NOT NULL,
	"key" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body_sha256" text NOT NULL,
	"status" integer NOT NULL,
	"content_type" text,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE TABLE "schedule_occurrences" (
	"schedule_id" integer NOT NULL,
	"occurs_on" date NOT NULL,
	"outcome" "occurrence_outcome" NOT NULL,
	"transaction_id" integer,
	"handled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedule_occurrences_schedule_id_occurs_on_pk" PRIMARY KEY("schedule_id","occurs_on")
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "schedules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"description" text NOT NULL,
	"entries" jsonb NOT NULL,
	"start_on" date NOT NULL,
	"every" "schedule_every" NOT NULL,
	"interval" integer DEFAULT 1 NOT NULL,
	"until_on" date,
	"mode" "schedule_mode" NOT NULL,
	"handled_before" date,
	"next_on" date,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedules_interval" CHECK ("schedules"."interval" between 1 and 99),
	CONSTRAINT "schedules_until" CHECK ("schedules"."until_on" is null or "schedules"."until_on" >= "schedules"."start_on")
);
--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_via";--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_subject";--> statement-breakpoint
ALTER TABLE "changes" ADD COLUMN "schedule_id" integer;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_occurrences" ADD CONSTRAINT "schedule_occurrences_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "schedules_next_on_idx" ON "schedules" USING btree ("next_on");--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_via" CHECK ("changes"."via" in ('session', 'token', 'cli', 'schedule'));--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_subject" CHECK ("changes"."subject" in ('transaction', 'account', 'settings', 'reconciliation', 'schedule'));