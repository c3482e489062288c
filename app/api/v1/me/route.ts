// GET /api/v1/me: describes the calling key
import { describeKey } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(describeKey);
