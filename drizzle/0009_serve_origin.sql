CREATE TABLE "serve_origin" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"api_origin" text NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "serve_origin_single_row" CHECK ("serve_origin"."id" = 1)
);
