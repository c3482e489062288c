export * from "./values.ts";
export * from "./sports.ts";
export * from "./accounts.ts";
export * from "./licensing.ts";
export * from "./keys.ts";
export * from "./events.ts";
export * from "./audit.ts";
export * from "./console.ts";
