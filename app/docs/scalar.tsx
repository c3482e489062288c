"use client";

// Loaded only through next/dynamic in api-reference.tsx, so that Scalar's stylesheet (260 KB) comes
// with Scalar's lazy chunks instead of with /docs itself, which every page's nav link prefetches.
import "./zod-jitless";
import "@scalar/api-reference-react/style.css";

export { ApiReferenceReact } from "@scalar/api-reference-react";
