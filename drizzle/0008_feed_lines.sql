CREATE TABLE "feed_lines" (
	"event_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	"digest" text NOT NULL,
	"revision" bigint NOT NULL,
	"applied_at" timestamp with time zone NOT NULL,
	CONSTRAINT "feed_lines_event_id_sequence_pk" PRIMARY KEY("event_id","sequence")
);
--> statement-breakpoint
ALTER TABLE "feed_lines" ADD CONSTRAINT "feed_lines_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feed_lines_applied_at_idx" ON "feed_lines" USING btree ("applied_at");