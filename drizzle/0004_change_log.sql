CREATE TABLE "changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_email" text,
	"via" text NOT NULL,
	"client_id" text,
	"subject" text NOT NULL,
	"subject_id" integer,
	"action" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	CONSTRAINT "changes_via" CHECK ("changes"."via" in ('session', 'token', 'cli')),
	CONSTRAINT "changes_subject" CHECK ("changes"."subject" in ('transaction', 'account', 'settings')),
	CONSTRAINT "changes_action" CHECK ("changes"."action" in ('create', 'update', 'delete', 'restore')),
	CONSTRAINT "changes_subject_id" CHECK (("changes"."subject" = 'settings') = ("changes"."subject_id" is null))
);
--> statement-breakpoint
CREATE INDEX "changes_subject_idx" ON "changes" USING btree ("subject","subject_id","id");