// What each message says, as plain text and simple HTML: pure, so a unit test reads every one.

export const SERVICE_NAME = "Sports Event Data";

/** A message as queued: one recipient, its words, the link it is about, extra headers. */
export type MailContent = {
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
  headers: Record<string, string>;
};

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * Composes a message from its paragraphs and at most one link. `unsubscribe`: the settings page where
 * the member turns this kind off, given for everything not about the account's security.
 */
export function compose(input: {
  kind: string;
  to: string;
  subject: string;
  paragraphs: string[];
  link?: { url: string; label: string };
  after?: string[];
  unsubscribe?: string;
}): MailContent {
  const after = input.after ?? [];
  const footer = input.unsubscribe
    ? `You get this as a member of an organisation on ${SERVICE_NAME}. Turn these messages off: ${input.unsubscribe}`
    : `This message is about the security of your ${SERVICE_NAME} account and cannot be turned off.`;
  const text = [
    ...input.paragraphs,
    ...(input.link ? [`${input.link.label}: ${input.link.url}`] : []),
    ...after,
    "--",
    `${SERVICE_NAME}. ${footer}`,
  ].join("\n\n");
  const html = [
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:36rem">`,
    `<h1 style="font-size:1.1rem">${escape(SERVICE_NAME)}</h1>`,
    ...input.paragraphs.map((p) => `<p>${escape(p)}</p>`),
    ...(input.link ? [`<p><a href="${escape(input.link.url)}">${escape(input.link.label)}</a></p>`] : []),
    ...after.map((p) => `<p>${escape(p)}</p>`),
    `<hr><p style="color:#555;font-size:0.85rem">${escape(footer)}</p>`,
    `</body></html>`,
  ].join("\n");
  const headers: Record<string, string> = input.unsubscribe ? { "List-Unsubscribe": `<${input.unsubscribe}>` } : {};
  return {
    kind: input.kind,
    to: input.to,
    subject: `${input.subject} · ${SERVICE_NAME}`,
    text,
    html,
    link: input.link?.url ?? null,
    headers,
  };
}

export function signUpLink(to: string, url: string): MailContent {
  return compose({
    kind: "sign_up.confirm",
    to,
    subject: "Confirm your sign-up",
    paragraphs: [
      "Someone, hopefully you, asked to create an organisation with this e-mail address.",
      "Open the link within 24 hours to create it and sign in. It works once.",
    ],
    link: { url, label: "Create the organisation" },
    after: ["Did not ask for this? Do nothing: no account is created."],
  });
}

export function signUpTaken(to: string, signInUrl: string, resetUrl: string): MailContent {
  return compose({
    kind: "sign_up.taken",
    to,
    subject: "Someone tried to sign up with your address",
    paragraphs: [
      "Someone tried to create an organisation with this e-mail address, which already has an account. No new account was created.",
      `If it was you, sign in: ${signInUrl}`,
    ],
    link: { url: resetUrl, label: "Forgot your password? Reset it here" },
    after: ["If it was not you, you need not do anything."],
  });
}

export function passwordResetLink(to: string, url: string): MailContent {
  return compose({
    kind: "password.reset",
    to,
    subject: "Reset your password",
    paragraphs: [
      "Someone, hopefully you, asked to reset the password of the account with this e-mail address.",
      "Open the link within 30 minutes to choose a new one. It works once, and setting a new password signs you out everywhere.",
    ],
    link: { url, label: "Choose a new password" },
    after: ["Did not ask for this? Do nothing: your password stays as it is."],
  });
}

export function invitationLink(
  to: string,
  invite: { url: string; organisation: string; role: string; invitedBy: string; expiresAt: Date },
): MailContent {
  return compose({
    kind: "invitation",
    to,
    subject: `Join ${invite.organisation}`,
    paragraphs: [
      `${invite.invitedBy} invites you to join ${invite.organisation} on ${SERVICE_NAME} as ${invite.role === "admin" ? "an admin" : "a viewer"}.`,
      `The link works once, until ${invite.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC.`,
    ],
    link: { url: invite.url, label: "Accept the invitation" },
  });
}

/** A security notice to the member: not to be turned off, so it carries no List-Unsubscribe. */
export function securityNotice(
  to: string,
  notice: { subject: string; paragraphs: string[]; link?: { url: string; label: string } },
): MailContent {
  return compose({ kind: "security", to, ...notice });
}

/** An alert to an organisation's admin, with the settings page where it is turned off. */
export function alertMessage(
  to: string,
  alert: {
    topic: string;
    subject: string;
    paragraphs: string[];
    link?: { url: string; label: string };
    settingsUrl: string;
  },
): MailContent {
  return compose({
    kind: `alert.${alert.topic}`,
    to,
    subject: alert.subject,
    paragraphs: alert.paragraphs,
    link: alert.link,
    unsubscribe: alert.settingsUrl,
  });
}
