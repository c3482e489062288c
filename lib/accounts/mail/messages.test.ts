import { describe, expect, it } from "vitest";
import { alertMessage, compose, passwordResetLink, securityNotice, signUpLink, signUpTaken } from "./messages.ts";
import { nextMailAttemptAt, MAIL_MAX_BACKOFF_MS, MAIL_RETRY_WINDOW_MS } from "./schedule.ts";

describe("mail messages", () => {
  it("carry their link in the text and the HTML, the service's name, and no List-Unsubscribe on security", () => {
    const mail = signUpLink("ada@example.com", "https://data.example.com/console/sign-up/confirm?token=abc");
    expect(mail.subject).toBe("Confirm your sign-up · Sports Event Data");
    expect(mail.text).toContain("https://data.example.com/console/sign-up/confirm?token=abc");
    expect(mail.html).toContain('href="https://data.example.com/console/sign-up/confirm?token=abc"');
    expect(mail.link).toBe("https://data.example.com/console/sign-up/confirm?token=abc");
    expect(mail.headers).toEqual({});
    expect(passwordResetLink("a@b.c", "https://x/r").text).toContain("30 minutes");
    expect(signUpTaken("a@b.c", "https://x/console/sign-in", "https://x/console/forgot-password").text).toContain(
      "https://x/console/sign-in",
    );
    expect(securityNotice("a@b.c", { subject: "s", paragraphs: ["p"] }).headers).toEqual({});
  });

  it("put List-Unsubscribe on alerts, pointing at the settings page", () => {
    const mail = alertMessage("a@b.c", {
      topic: "keys",
      subject: "s",
      paragraphs: ["p"],
      settingsUrl: "https://x/console/settings",
    });
    expect(mail.headers).toEqual({ "List-Unsubscribe": "<https://x/console/settings>" });
    expect(mail.kind).toBe("alert.keys");
    expect(mail.text).toContain("Turn these messages off: https://x/console/settings");
  });

  it("escape what they quote in the HTML", () => {
    const mail = compose({ kind: "k", to: "a@b.c", subject: "s", paragraphs: ['<script>"x"</script>'] });
    expect(mail.html).toContain("&lt;script&gt;&quot;x&quot;&lt;/script&gt;");
    expect(mail.html).not.toContain("<script>");
  });

  it("try again after the base, doubling up to 15 minutes, for a day", () => {
    expect(nextMailAttemptAt(1, 0, 1_000, 1_000)).toBe(2_000);
    expect(nextMailAttemptAt(3, 0, 1_000, 1_000)).toBe(5_000);
    expect(nextMailAttemptAt(30, 0, 1_000, 1_000)).toBe(1_000 + MAIL_MAX_BACKOFF_MS);
    expect(nextMailAttemptAt(2, 0, MAIL_RETRY_WINDOW_MS, 1_000)).toBeNull();
  });
});
