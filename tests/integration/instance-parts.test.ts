import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiResponse } from "../../lib/api/index.ts";
import { loadConfig } from "../../lib/config.ts";
import { startInstance, type Instance } from "../../lib/instance.ts";
import { unmetered, type InstanceMeter } from "../../lib/metering/index.ts";
import { MemoryBus } from "../../testing/instance-parts.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";

// startInstance given parts of its own (here a meter that counts nothing and a bus that hears
// nothing, as a benchmark's baseline is built) serves with them, and leaves them to their giver.

describe("an instance given its meter and bus", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-instance-parts-"));
  const env = { DATA_DIR: dir, SIM: "off", SEED_DEMO: "0" };
  const closed: string[] = [];
  const meter: InstanceMeter = { ...unmetered, close: async () => void closed.push("meter") };
  const bus = new MemoryBus();
  let instance: Instance | undefined;
  let key: string;

  beforeAll(async () => {
    key = (await organisationWithKeys(env, "parts", { plan: "starter", sandboxSport: "soccer" })).production.key;
    instance = await startInstance(loadConfig(env), { parts: { meter, bus } });
  });

  afterAll(async () => {
    await instance?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const me = (): Promise<ApiResponse> =>
    instance!.api.handle({
      method: "GET",
      path: "/api/v1/me",
      query: new URLSearchParams(),
      header: (name) => (name === "authorization" ? `Bearer ${key}` : undefined),
      peer: "127.0.0.1",
    });
  const used = (response: ApiResponse) =>
    (JSON.parse(Buffer.concat(response.body ?? []).toString()) as { meta: { requests_used: number } }).meta
      .requests_used;

  it("admits through the given meter: nothing counted, no rate-limit headers", async () => {
    const first = await me();
    const second = await me();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([used(first), used(second)]).toEqual([0, 0]);
    expect(second.headers.ratelimit).toBeUndefined();
    expect(instance!.meter).toBe(meter);
    expect(instance!.bus).toBe(bus);
  });

  it("leaves the parts it was given open when it stops", async () => {
    await instance!.stop();
    instance = undefined;
    expect(closed).toEqual([]);
    expect(bus.closed).toBe(false);
  });
});
