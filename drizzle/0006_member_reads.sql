CREATE TABLE "member_usage_monthly" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "member_usage_monthly_user_id_month_pk" PRIMARY KEY("user_id","month"),
	CONSTRAINT "member_usage_monthly_first_day_check" CHECK (extract(day from "member_usage_monthly"."month") = 1)
);
--> statement-breakpoint
ALTER TABLE "member_usage_monthly" ADD CONSTRAINT "member_usage_monthly_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
