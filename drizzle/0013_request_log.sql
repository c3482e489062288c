-- The request log: each key's refused requests and a sample of its admitted ones, kept 7 days.
CREATE TABLE "request_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"org_id" text NOT NULL,
	"key_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" smallint NOT NULL,
	"code" text,
	"latency_ms" integer NOT NULL,
	"request_id" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "request_log_org_at_idx" ON "request_log" USING btree ("org_id","at");
--> statement-breakpoint
CREATE INDEX "request_log_key_at_idx" ON "request_log" USING btree ("key_id","at");
--> statement-breakpoint
CREATE INDEX "request_log_request_id_idx" ON "request_log" USING btree ("request_id");
--> statement-breakpoint
CREATE INDEX "request_log_at_idx" ON "request_log" USING btree ("at");
