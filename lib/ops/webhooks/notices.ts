import { logger } from "../../log/index.ts";
import type { AutoDisabled } from "./outbox.ts";

// What the organisation is told when the service disables one of its endpoints. The console's
// banner reads the endpoint's `auto_disabled_at` and the audit log has its entry (both written with
// the change); this is the one place a notice goes out beyond them: the log today, mail to the
// organisation's admins once the service sends mail.

/** Raises the notice that an endpoint was disabled after a day of failed attempts. */
export function raiseEndpointDisabledNotice(notice: AutoDisabled): void {
  logger().warn(
    {
      org_id: notice.orgId,
      endpoint_id: notice.endpointId,
      failing_since: notice.failingSince.toISOString(),
    },
    "Webhook endpoint disabled after a day of failed deliveries",
  );
}
