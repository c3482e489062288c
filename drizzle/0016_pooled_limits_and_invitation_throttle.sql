-- The plan's monthly quota is the organisation's: its keys' and its members' requests together.
CREATE TABLE "org_usage_monthly" (
	"org_id" text NOT NULL,
	"month" date NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "org_usage_monthly_org_id_month_pk" PRIMARY KEY("org_id","month"),
	CONSTRAINT "org_usage_monthly_first_day_check" CHECK (extract(day from "org_usage_monthly"."month") = 1),
	CONSTRAINT "org_usage_monthly_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
-- What was counted before, per key and per member, is the organisation's too (sandbox keys have limits of their own).
INSERT INTO "org_usage_monthly" ("org_id", "month", "requests")
SELECT org_id, month, sum(requests) FROM (
	SELECT k.org_id, u.month, u.requests FROM usage_monthly u JOIN api_keys k ON k.id = u.key_id
	WHERE k.environment = 'production'
	UNION ALL
	SELECT m.org_id, u.month, u.requests FROM member_usage_monthly u JOIN memberships m ON m.user_id = u.user_id
) counted
GROUP BY org_id, month;
--> statement-breakpoint
-- Accepts of invitations that reached the token's lookup, for the per-network throttle.
CREATE TABLE "invitation_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "invitation_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"address" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "invitation_attempts_address_at_idx" ON "invitation_attempts" USING btree ("address","at");
