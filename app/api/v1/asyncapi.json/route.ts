// GET /api/v1/asyncapi.json: the AsyncAPI 3.0 document of the streams, public
import { documentRouteHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = documentRouteHandlers("/api/v1/asyncapi.json");
