// GET /llms.txt: the API for language models, a summary with a link per operation, public
import { documentRouteHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = documentRouteHandlers("/llms.txt");
