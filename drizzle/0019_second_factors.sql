-- Second factors (authenticator apps, passkeys), recovery codes, each session's sign-in stage and
-- an organisation's policy on second factors.
CREATE TABLE "second_factors" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"secret" text,
	"last_time_step" integer,
	"credential_id" text,
	"public_key" text,
	"sign_count" integer,
	"confirmed_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "second_factors_credential_id_unique" UNIQUE("credential_id"),
	CONSTRAINT "second_factors_kind_check" CHECK (kind in ('totp', 'passkey')),
	CONSTRAINT "second_factors_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "second_factors_user_idx" ON "second_factors" USING btree ("user_id");
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");
--> statement-breakpoint
CREATE TABLE "sign_in_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"stage" text NOT NULL,
	"second_factor_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sign_in_sessions_stage_check" CHECK (stage in ('second_factor', 'enrol', 'done')),
	CONSTRAINT "sign_in_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "sign_in_sessions_created_idx" ON "sign_in_sessions" USING btree ("created_at");
--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "second_factor_policy" text DEFAULT 'none' NOT NULL;
