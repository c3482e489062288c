import { headers } from "next/headers";
import { loadConfig } from "@/lib/config";
import { clientAddress } from "@/lib/console/sign-in";

/**
 * The service's public address, which mailed links start with: NEXTAUTH_URL when set (production
 * sending mail requires it, so no request's Host can point a reset link elsewhere), else the Host
 * this request came to.
 */
export async function publicOrigin(): Promise<string> {
  const config = loadConfig();
  if (config.NEXTAUTH_URL) return config.NEXTAUTH_URL.replace(/\/+$/, "");
  const request = await headers();
  // server.ts keeps X-Forwarded-Proto only from a trusted proxy.
  const proto = request.get("x-forwarded-proto") === "https" ? "https" : "http";
  return `${proto}://${request.get("host") ?? "localhost"}`;
}

/** The client's address as the throttles count it. */
export async function requestAddress(): Promise<string> {
  return clientAddress((await headers()).get("x-forwarded-for"), loadConfig().TRUST_PROXY_HOPS);
}
