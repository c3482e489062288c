/**
 * A rule of the domain refused what was asked (a second sandbox key, a production key without a
 * licence). The console shows `message` to the user and the CLI prints it; both are written for
 * people. API errors are a separate table in lib/api.
 */
export const DOMAIN_ERROR_CODES = [
  "invalid_input",
  "not_found",
  "conflict",
  "record_changed",
  "sandbox_key_exists",
  "licence_missing",
  "licence_not_valid",
  "plan_missing",
  "approval_required",
  "forbidden",
  "invitation_invalid",
  "link_invalid",
  "throttled",
  "step_up_required",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  override name = "DomainError";
  readonly code: DomainErrorCode;
  constructor(code: DomainErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A unique or exclusion violation, from either driver (drizzle wraps driver errors in `cause`). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
