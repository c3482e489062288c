ALTER TABLE "users" ADD COLUMN "sessions_valid_after" timestamp with time zone;--> statement-breakpoint
CREATE TABLE "sign_up_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sign_up_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"address" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_up_attempts_address_at_idx" ON "sign_up_attempts" USING btree ("address","at");--> statement-breakpoint
CREATE INDEX "sign_up_attempts_at_idx" ON "sign_up_attempts" USING btree ("at");
