// Any other path under /api/v1: 404 not_found to a known key (counted), as the contract says
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(null);
