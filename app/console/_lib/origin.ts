import { headers } from "next/headers";
import { currentInstance } from "@/lib/instance";
import { clientAddress } from "@/lib/http/client-address";
import { relyingParty, type RelyingParty } from "@/lib/accounts/factors/passkeys";

/**
 * The service's public address, which mailed links start with: NEXTAUTH_URL when set (production
 * sending mail requires it, so no request's Host can point a reset link elsewhere), else the Host
 * this request came to.
 */
export async function publicOrigin(): Promise<string> {
  const config = currentInstance().config;
  if (config.NEXTAUTH_URL) return config.NEXTAUTH_URL.replace(/\/+$/, "");
  const request = await headers();
  // server.ts keeps X-Forwarded-Proto only from a trusted proxy.
  const proto = request.get("x-forwarded-proto") === "https" ? "https" : "http";
  return `${proto}://${request.get("host") ?? "localhost"}`;
}

/** The client's address as the throttles count it. */
export async function requestAddress(): Promise<string> {
  return clientAddress((await headers()).get("x-forwarded-for"), currentInstance().config.TRUST_PROXY_HOPS);
}

/** Who passkeys are made for: the service's public address (NEXTAUTH_URL when set). */
export async function passkeyRelyingParty(): Promise<RelyingParty> {
  return relyingParty(await publicOrigin());
}
