import type { Role, SecondFactorPolicy } from "../../db/schema/index.ts";

/** Whether the organisation's policy asks a member of this role for a second factor. Pure. */
export function policyRequires(policy: SecondFactorPolicy, role: Role): boolean {
  return policy === "all" || (policy === "admins" && role === "admin");
}

export const POLICY_WORDS: Record<SecondFactorPolicy, string> = {
  none: "no one is required to use a second factor",
  admins: "admins must use a second factor",
  all: "every member must use a second factor",
};
