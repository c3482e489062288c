import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly next to its own files, and both drivers keep process-wide state
  // that server.ts shares with pages and actions: they must stay ordinary Node modules.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
