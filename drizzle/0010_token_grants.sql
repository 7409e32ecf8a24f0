CREATE TABLE "grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" integer NOT NULL,
	"client_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "grant_id" uuid;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "grants_user_id_idx" ON "grants" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "grants_client_id_idx" ON "grants" USING btree ("client_id");--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_grant_id_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tokens_grant_id_idx" ON "tokens" USING btree ("grant_id");--> statement-breakpoint
-- D25: every family issued before grants existed becomes one, named after its first refresh token
-- (a refresh token whose parent is no refresh token); every token descending from it joins it.
INSERT INTO "grants" ("id", "user_id", "client_id", "created_at")
SELECT md5(t."hash")::uuid, t."user_id", t."client_id", t."created_at" FROM "tokens" t
WHERE t."kind" = 'refresh'
  AND NOT EXISTS (SELECT 1 FROM "tokens" p WHERE p."hash" = t."parent_hash" AND p."kind" = 'refresh');--> statement-breakpoint
WITH RECURSIVE family("hash", "root") AS (
  SELECT t."hash", t."hash" FROM "tokens" t
  WHERE t."kind" = 'refresh'
    AND NOT EXISTS (SELECT 1 FROM "tokens" p WHERE p."hash" = t."parent_hash" AND p."kind" = 'refresh')
  UNION
  SELECT c."hash", f."root" FROM "tokens" c JOIN family f ON c."parent_hash" = f."hash"
)
UPDATE "tokens" SET "grant_id" = md5(family."root")::uuid FROM family WHERE "tokens"."hash" = family."hash";--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_refresh_has_grant" CHECK ("tokens"."kind" = 'access' or "tokens"."grant_id" is not null);