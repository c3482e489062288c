// Every path under /api/v1 but the documents: the API's router finds the operation, as behind the node entry
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers();
