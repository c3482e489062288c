// GET /api/v1/changes: the board stream's messages after a revision (since, sport, limit)
import { listChanges } from "@/lib/api/endpoints/history";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(listChanges);
