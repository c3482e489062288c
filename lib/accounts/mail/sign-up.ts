import "#server-only";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { createOrganisationWithAdmin, signUpInput } from "../../console/members.ts";
import type { Database } from "../../db/index.ts";
import { organisations, users } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { slugify } from "../organisations.ts";
import { newPasswordHash } from "../users.ts";
import { mailLinks } from "./links.ts";
import { signUpLink, signUpTaken } from "./messages.ts";
import { queueMail } from "./outbox.ts";
import { issueToken, spendToken } from "./tokens.ts";

/** What the sign-up form answers, for a new address and a registered one alike. */
export const SIGN_UP_ANSWER = "Check your inbox: we sent a link to the address you gave. It works for 24 hours.";

export const INVALID_SIGN_UP_LINK =
  "This link is not valid: it was used already or has expired (it works for 24 hours). Sign up again for a new one.";

/**
 * A sign-up asked for: the same answer whether or not the address has an account, so that the
 * form tells no one which addresses are registered. A new address is mailed a link that creates
 * the organisation; a registered one is told that someone tried. Both hash the password, so both
 * take as long.
 */
export async function requestSignUp(
  db: Database,
  input: z.input<typeof signUpInput>,
  options: { at: Date; origin: string },
): Promise<void> {
  const parsed = signUpInput.parse(input);
  const [taken] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.slug, slugify(parsed.organisation)));
  // An organisation's name is no secret of anyone's: said on the form, as before.
  if (taken)
    throw new DomainError(
      "conflict",
      `An organisation named like "${parsed.organisation}" already exists; choose another name.`,
    );
  const passwordHash = await newPasswordHash(parsed.password);
  await db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, parsed.email));
    if (user) {
      await queueMail(
        tx,
        signUpTaken(parsed.email, mailLinks.signIn(options.origin), mailLinks.forgotPassword(options.origin)),
        options.at,
      );
      return;
    }
    const token = await issueToken(
      tx,
      {
        purpose: "sign_up",
        email: parsed.email,
        payload: { organisation: parsed.organisation, name: parsed.name, passwordHash },
      },
      options.at,
    );
    await queueMail(tx, signUpLink(parsed.email, mailLinks.signUpConfirm(options.origin, token)), options.at);
  });
}

/**
 * The mailed link opened and confirmed: creates the organisation and its admin, once, and returns a
 * grant the browser signs in with.
 */
export async function confirmSignUp(db: Database, token: string, at: Date): Promise<{ email: string; grant: string }> {
  return db.transaction(async (tx) => {
    const row = await spendToken(tx, "sign_up", token, at);
    const payload = row?.payload;
    if (!row || !payload?.organisation || !payload.name || !payload.passwordHash)
      throw new DomainError("link_invalid", INVALID_SIGN_UP_LINK);
    const { user } = await createOrganisationWithAdmin(tx, {
      organisation: payload.organisation,
      name: payload.name,
      email: row.email,
      passwordHash: payload.passwordHash,
    });
    const grant = await issueToken(tx, { purpose: "sign_in", email: row.email, userId: user.id }, at);
    return { email: row.email, grant };
  });
}
