CREATE TABLE "status_minutes" (
	"minute" timestamp with time zone NOT NULL,
	"instance" text NOT NULL,
	"ready" boolean NOT NULL,
	"feeds" jsonb NOT NULL,
	"rest" jsonb NOT NULL,
	"stream_lag" jsonb NOT NULL,
	CONSTRAINT "status_minutes_minute_instance_pk" PRIMARY KEY("minute","instance")
);
--> statement-breakpoint
CREATE TABLE "status_incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"components" jsonb NOT NULL,
	"state" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"updates" jsonb NOT NULL,
	CONSTRAINT "status_incidents_state_check" CHECK (state in ('investigating', 'identified', 'monitoring', 'resolved'))
);
--> statement-breakpoint
CREATE INDEX "status_incidents_started_at_idx" ON "status_incidents" USING btree ("started_at");
