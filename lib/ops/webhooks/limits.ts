// The bounds of an organisation's webhooks (docs/webhooks.md): how many endpoints it keeps, how
// many test messages it sends, how many attempts one instance makes at once and how long an
// endpoint may fail before it is disabled. Fixed, not per plan: they protect the service and the
// receivers, whatever an organisation pays.

/** Endpoints one organisation may have, enabled or not. */
export const ENDPOINTS_PER_ORGANISATION = 10;

/** Test messages one organisation may queue in a minute, across its endpoints. */
export const TEST_SENDS_PER_MINUTE = 10;

/** Attempts one instance has open at once, across organisations. */
export const ATTEMPTS_IN_FLIGHT = 16;

/** Attempts one instance has open at once for one organisation: the rest are left for the others. */
export const ATTEMPTS_IN_FLIGHT_PER_ORGANISATION = 4;

/** How long an endpoint fails every attempt before the service disables it. */
export const FAILING_DISABLES_AFTER_MS = 86_400_000;
