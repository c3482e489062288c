"use client";

// The Scalar API reference, mounted in the browser only. Scalar is a Vue app wrapped for React: it
// renders nothing on the server anyway, and loading it with ssr:false keeps its code out of the
// server bundle and out of the first load of /docs (it arrives as lazy chunks, /docs only).
import type { AnyApiReferenceConfiguration } from "@scalar/api-reference-react";
import dynamic from "next/dynamic";

const ApiReferenceReact = dynamic(() => import("./scalar").then((m) => m.ApiReferenceReact), {
  ssr: false,
  loading: () => <p className="text-slate-600">Loading the API reference…</p>,
});

// One object for the page's lifetime: the wrapper calls updateConfiguration() whenever the
// configuration prop changes identity.
const configuration: AnyApiReferenceConfiguration = {
  url: "/api/v1/openapi.json",
  // The document's server is the relative "/", which Scalar resolves against the page's origin,
  // so the curl examples and "Test Request" go to the server that serves this page.
  // Offline: no fonts from fonts.scalar.com; the app's own font stack instead.
  withDefaultFonts: false,
  customCss: ".scalar-app { --scalar-font: var(--font-sans); }",
  // None of Scalar's hosted services: no AI agent (api.scalar.com) and no "Generate MCP" button (it
  // uploads the document to Scalar), both shown by default when the page is on localhost; no
  // developer toolbar (its "share" uploads the document too); no telemetry; no "Open API Client"
  // link (to client.scalar.com with this document's address). "Test Request" stays: it runs in the
  // page and sends the request straight to this origin (no proxyUrl is set).
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: "never",
  telemetry: false,
  // No default client: Scalar then opens each operation on its own code sample where it has one (the
  // streams' curl with -N and an event's id, from the document's x-codeSamples), and on its generated
  // curl everywhere else.
  documentDownloadType: "json",
  // Five operations: all of them open, rather than one tag open and the rest to find.
  defaultOpenAllTags: true,
};

export function ApiReference() {
  return <ApiReferenceReact configuration={configuration} />;
}
