import { ENDPOINTS } from "../endpoints/index.ts";
import type { Endpoint } from "./pipeline.ts";

export const API_PREFIX = "/api/v1";
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const ASYNCAPI_PATH = `${API_PREFIX}/asyncapi.json`;

const routes = ENDPOINTS.map((endpoint) => {
  const names: string[] = [];
  const pattern = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { endpoint, pattern: new RegExp(`^${pattern}$`), names };
});

export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/** The endpoint of a path under /api/v1 with its path parameters; endpoint null when none matches. */
export function matchEndpoint(path: string): { endpoint: Endpoint | null; params: Record<string, string> } {
  for (const { endpoint, pattern, names } of routes) {
    const match = pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    names.forEach((name, i) => {
      const raw = match[i + 1]!;
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        params[name] = raw; // malformed escapes: the parameter's own validation refuses it
      }
    });
    return { endpoint, params };
  }
  return { endpoint: null, params: {} };
}
