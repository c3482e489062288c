CREATE TABLE "meter_journals" (
	"id" text PRIMARY KEY NOT NULL,
	"flushed_bytes" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
