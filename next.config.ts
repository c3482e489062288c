import type { NextConfig } from "next";
import { loadEnvFiles } from "./lib/env-files.ts";
import { JSON_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from "./lib/http/security-headers.ts";

// The build reads .env and .env.local as the server and the CLI do (Next reads them too, for pages).
loadEnvFiles();

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly next to its own files, and both drivers keep process-wide state
  // that server.ts shares with pages and actions: they must stay ordinary Node modules.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
  // For profiling the board (bench:board's BENCH_BOARD_PROFILE): the pages' sources, served beside
  // their bundles. Off by default, so a deployment does not publish its client code's sources.
  productionBrowserSourceMaps: process.env.BROWSER_SOURCE_MAPS === "1",
  // /api/v1 sends its own headers from lib/api/request/pipeline.ts (ours would win over a route handler's).
  async headers() {
    return [
      { source: "/((?!api/v1/|api/v1$).*)", headers: PAGE_SECURITY_HEADERS },
      {
        // next-auth's and the feed ingest's JSON; pages get their policy from proxy.ts.
        source: "/api/((?!v1/|v1$).*)",
        headers: [{ key: "Content-Security-Policy", value: JSON_SECURITY_HEADERS["content-security-policy"] }],
      },
    ];
  },
};

export default nextConfig;
