import { hashPasswordsFast } from "../lib/accounts/auth/password.ts";

// The integration files' own sign-ups and sign-ins hash at a test's cost, as their servers do
// (TEST_FAST_PASSWORD_HASH in testing/databases.ts): OWASP's cost is the unit tests' to prove.
hashPasswordsFast(true);
