// GET /api/v1/openapi.json: the OpenAPI 3.1 document, public
import { documentRouteHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = documentRouteHandlers("/api/v1/openapi.json");
