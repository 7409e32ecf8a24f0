-- D18: clients that publish a Client ID Metadata Document get a row (their id is the document's
-- https URL) for the grants that reference it; metadata_updated_at marks them, and only them.
ALTER TABLE "oauth_clients" ADD COLUMN "metadata_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_metadata_document" CHECK (("oauth_clients"."metadata_updated_at" is not null) = ("oauth_clients"."id" like 'https://%'));