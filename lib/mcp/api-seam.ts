// Everything lib/mcp takes from lib/api, in one place: the MCP server is a face of the API, so it
// runs the API's operations through the API's one router and pipeline (`Api.handle`: a GET of the
// operation's path, with the caller's own headers and address) and describes them with the
// API's own schemas and documents. Nothing else of lib/mcp (its tests aside) imports lib/api.

export type { Api, ApiRequest, ApiResponse } from "../api/index.ts";
export type { Endpoint } from "../api/request/pipeline.ts";

// The operations the tools face, for their paths, ids and zod schemas (those of the OpenAPI document).
export { describeKey, getEvent, getEventOdds, getLineups, listEvents, listOdds } from "../api/endpoints/index.ts";
export { listChanges, marketHistory } from "../api/endpoints/history.ts";
export { EventPath, OddsQuery, AsOfQuery } from "../api/endpoints/queries.ts";
export { Problem } from "../api/endpoints/schemas.ts";

// The documents the resources serve, and the table of error codes.
export { openApiDocument } from "../api/documents/openapi.ts";
export { asyncApiDocument } from "../api/documents/asyncapi.ts";
export { API_ERRORS, ApiError, type ApiErrorCode } from "../api/request/errors.ts";

// Refusals of the HTTP exchange itself, in the API's problem format: a key in the URL, a method.
export { refuseKeyInQuery } from "../api/credentials/credentials.ts";
export { problemAnswer, API_HEADERS } from "../api/request/negotiation.ts";
export { writeApiResponse } from "../api/request/node.ts";
