-- An endpoint's lease: the instance posting to it holds it until its attempt is recorded (or the
-- lease runs out), so that every instance together has one attempt at a time open on an endpoint.
ALTER TABLE "webhook_endpoints" ADD COLUMN "lease_until" timestamp with time zone;
