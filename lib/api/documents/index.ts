import { newRequestId } from "../../http/problem.ts";
import { asyncApiDocument } from "./asyncapi.ts";
import { ApiError } from "../request/errors.ts";
import { LLMS_FULL_PATH, LLMS_PATH, llmsFullText, llmsText, type OpenApiDocument } from "./llms.ts";
import { openApiDocument } from "./openapi.ts";
import {
  ALLOWED_METHODS,
  API_HEADERS,
  isPreflight,
  preflightAnswer,
  problemAnswer,
  type ApiRequest,
  type ApiResponse,
} from "../request/pipeline.ts";
import { ASYNCAPI_PATH, OPENAPI_PATH } from "../request/router.ts";

// The documents that describe the API, each built once from the endpoints' zod schemas and served
// as it is: public, no key needed, not counted.

const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";
const openApi = () => openApiDocument() as OpenApiDocument;

const DOCUMENTS = {
  [OPENAPI_PATH]: { type: JSON_TYPE, render: () => JSON.stringify(openApiDocument()) },
  [ASYNCAPI_PATH]: { type: JSON_TYPE, render: () => JSON.stringify(asyncApiDocument()) },
  [LLMS_PATH]: { type: TEXT_TYPE, render: () => llmsText(openApi()) },
  [LLMS_FULL_PATH]: { type: TEXT_TYPE, render: () => llmsFullText(openApi()) },
} satisfies Record<string, { type: string; render: () => string }>;

export type DocumentPath = keyof typeof DOCUMENTS;

export function isDocumentPath(path: string): path is DocumentPath {
  return Object.hasOwn(DOCUMENTS, path);
}

const bytes = new Map<DocumentPath, Buffer>();

/** GET or HEAD of one of the documents; a preflight as for any /api/v1 path; other methods 405. */
export function documentResponse(path: DocumentPath, request: ApiRequest): ApiResponse {
  const requestId = newRequestId();
  if (request.method !== "GET" && request.method !== "HEAD") {
    if (isPreflight(request)) return preflightAnswer(requestId);
    const error = new ApiError("method_not_allowed", `${request.method} is not allowed: GET or HEAD the document.`, {
      headers: { allow: ALLOWED_METHODS },
    });
    return problemAnswer(error, requestId, request.method);
  }
  const document = DOCUMENTS[path];
  let body = bytes.get(path);
  if (!body) {
    body = Buffer.from(document.render());
    bytes.set(path, body);
  }
  return {
    status: 200,
    headers: {
      ...API_HEADERS,
      "x-request-id": requestId,
      "content-type": document.type,
      "content-length": String(body.length),
      "cache-control": "public, max-age=300",
    },
    body: request.method === "HEAD" ? null : [body],
  };
}
