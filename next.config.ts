import type { NextConfig } from "next";
import { loadEnvFiles } from "./lib/config.ts";

// The build reads .env and .env.local as the server and the CLI do (Next reads them too, for pages).
loadEnvFiles();

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly next to its own files, and both drivers keep process-wide state
  // that server.ts shares with pages and actions: they must stay ordinary Node modules.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
