import { hashPasswordsFast } from "../lib/accounts/auth/password.ts";

// The integration files' own sign-ups and sign-ins hash at a test's cost, as their servers do
// (testing/password-cost.ts): OWASP's cost is the unit tests' to prove.
hashPasswordsFast(true);
