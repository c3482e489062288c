import { ResourceNotFoundError, type ReadResourceResult, type Resource } from "@modelcontextprotocol/server";
import { API_ERRORS, asyncApiDocument, openApiDocument } from "./api-seam.ts";

// The documents an assistant may read to know the API whole: the OpenAPI and AsyncAPI documents
// the service publishes, and its error codes with what each means. Public, as they are over HTTP:
// reading one needs no key and is not counted.

const ERRORS_INTRO = `# Error codes

A refused tool call is a tool error (\`isError: true\`). Its text is the problem's title and detail;
its structured content is the API's problem (RFC 9457): \`code\` (stable, to switch on), \`title\`,
\`status\`, \`detail\`, \`request_id\` (quote it when reporting a problem), \`errors\` (one per invalid
argument, named as the tool's argument is), \`violated-policies\` (on 429), and \`retry_after\` (seconds)
when the API says how long to wait. Refusals of the key itself (401, \`conflicting_credentials\`,
\`licence_inactive\`, \`ip_not_allowed\`) and of its limits (429) are not counted against its quota; every
other answer is, as over HTTP.
`;

function errorReference(): string {
  const lines = Object.entries(API_ERRORS).map(
    ([code, error]) => `- \`${code}\` (${error.status}, ${error.title}): ${error.description}`,
  );
  return `${ERRORS_INTRO}\n${lines.join("\n")}\n`;
}

type Document = Resource & { read(): string };

const DOCUMENTS: Document[] = [
  {
    uri: "sports-data://openapi.json",
    name: "openapi",
    title: "OpenAPI document",
    description: "Every operation the tools face, with its parameters, answers, schemas and error codes (OpenAPI 3.1).",
    mimeType: "application/json",
    read: () => JSON.stringify(openApiDocument()),
  },
  {
    uri: "sports-data://asyncapi.json",
    name: "asyncapi",
    title: "AsyncAPI document of the streams",
    description:
      "The Server-Sent Events streams (AsyncAPI 3.0): not tools, since an assistant cannot hold one open; " +
      "changes_since returns the same messages, a page at a time.",
    mimeType: "application/json",
    read: () => JSON.stringify(asyncApiDocument()),
  },
  {
    uri: "sports-data://errors",
    name: "errors",
    title: "Error codes",
    description: "Every code a refused call carries, its status and what it means.",
    mimeType: "text/markdown",
    read: errorReference,
  },
];

export const RESOURCES: Resource[] = DOCUMENTS.map(({ uri, name, title, description, mimeType }) => ({
  uri,
  name,
  title,
  description,
  mimeType,
}));

const texts = new Map<string, string>();

export function readResource(uri: string): ReadResourceResult {
  const document = DOCUMENTS.find((d) => d.uri === uri);
  // The protocol's answer to an unknown resource (-32602, with the URI).
  if (!document) throw new ResourceNotFoundError(uri, `No resource ${uri}: resources/list names them.`);
  let text = texts.get(uri);
  if (text === undefined) {
    text = document.read();
    texts.set(uri, text);
  }
  return { contents: [{ uri, mimeType: document.mimeType, text }] };
}
