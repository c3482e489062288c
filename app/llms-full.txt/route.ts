// GET /llms-full.txt: the whole API reference as Markdown, for language models, public
import { documentRouteHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = documentRouteHandlers("/llms-full.txt");
