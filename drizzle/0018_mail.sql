-- Mail: the outbox and each attempt's result, single-use mailed links, the throttling of reset
-- requests, the alerts members turned off, and the networks and devices they signed in from.
CREATE TABLE "mail_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text NOT NULL,
	"link" text,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	CONSTRAINT "mail_messages_state_check" CHECK (state in ('pending', 'sent', 'failed', 'kept'))
);
--> statement-breakpoint
CREATE INDEX "mail_messages_due_idx" ON "mail_messages" USING btree ("next_attempt_at") WHERE state = 'pending';
--> statement-breakpoint
CREATE INDEX "mail_messages_created_idx" ON "mail_messages" USING btree ("created_at");
--> statement-breakpoint
CREATE INDEX "mail_messages_recipient_idx" ON "mail_messages" USING btree ("recipient","kind","created_at");
--> statement-breakpoint
CREATE TABLE "mail_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mail_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"message_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"ok" boolean NOT NULL,
	"result" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_attempts" ADD CONSTRAINT "mail_attempts_message_id_mail_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."mail_messages"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "mail_attempts_message_idx" ON "mail_attempts" USING btree ("message_id","at");
--> statement-breakpoint
CREATE TABLE "mail_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"user_id" text,
	"payload" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "mail_tokens_purpose_check" CHECK (purpose in ('sign_up', 'password_reset', 'sign_in'))
);
--> statement-breakpoint
ALTER TABLE "mail_tokens" ADD CONSTRAINT "mail_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "mail_tokens_expires_idx" ON "mail_tokens" USING btree ("expires_at");
--> statement-breakpoint
CREATE TABLE "mail_requests" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mail_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"address" text NOT NULL,
	"email" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "mail_requests_address_idx" ON "mail_requests" USING btree ("kind","address","at");
--> statement-breakpoint
CREATE INDEX "mail_requests_at_idx" ON "mail_requests" USING btree ("at");
--> statement-breakpoint
CREATE TABLE "mail_preferences" (
	"user_id" text NOT NULL,
	"topic" text NOT NULL,
	CONSTRAINT "mail_preferences_user_id_topic_pk" PRIMARY KEY("user_id","topic")
);
--> statement-breakpoint
ALTER TABLE "mail_preferences" ADD CONSTRAINT "mail_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "known_sign_ins" (
	"user_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "known_sign_ins_user_id_fingerprint_pk" PRIMARY KEY("user_id","fingerprint")
);
--> statement-breakpoint
ALTER TABLE "known_sign_ins" ADD CONSTRAINT "known_sign_ins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "licence_lapse_notices" (
	"org_id" text NOT NULL,
	"valid_until" date NOT NULL,
	"days" integer NOT NULL,
	"noticed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "licence_lapse_notices_org_id_valid_until_days_pk" PRIMARY KEY("org_id","valid_until","days")
);
--> statement-breakpoint
ALTER TABLE "licence_lapse_notices" ADD CONSTRAINT "licence_lapse_notices_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;
