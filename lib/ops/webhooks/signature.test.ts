import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newSecret, signature, signedHeaders } from "./signature.ts";

describe("Standard Webhooks signatures", () => {
  it("are accepted by the standard's own verifier, and refused for another body or secret", () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: "webhook.test", timestamp: "2026-11-26T10:00:00.000Z", data: {} });
    const headers = signedHeaders([secret], "msg_1", new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace("test", "tost"), headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it("carry a signature per secret while a rotated one overlaps: either secret verifies, no other", () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = JSON.stringify({ type: "webhook.test", timestamp: "2026-11-26T10:00:00.000Z", data: {} });
    const headers = signedHeaders([current, previous], "msg_2", new Date(), body);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it("sign id, timestamp (seconds) and body with the secret's decoded bytes, as the standard's own signer does", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    const expected = new Webhook(secret).sign("msg_p5jXN8AQM2LWM0D4loKWxJek", new Date(1_614_265_330_000), body);
    expect(signature(secret, "msg_p5jXN8AQM2LWM0D4loKWxJek", 1_614_265_330, body)).toBe(expected);
  });

  it("makes secrets of 32 random bytes, never the same twice", () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });
});
