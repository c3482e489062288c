import { describe, expect, it } from "vitest";
import { keyChanges, keyCreations, type KeyChange } from "../lib/bus/index.ts";
import { MemoryBus, MemoryKeyDirectory } from "./instance-parts.ts";
import { activeKey } from "./keys.ts";

describe("the in-memory change bus", () => {
  it("reads what is published through the channel's schema, to its followers and subscribers", async () => {
    const bus = new MemoryBus();
    const followed: (KeyChange | null)[] = [];
    const subscribed: KeyChange[] = [];
    const created: unknown[] = [];
    const unfollow = await bus.follow(keyChanges, (notice) => followed.push(notice));
    await bus.subscribe(keyChanges, (notice) => subscribed.push(notice));
    await bus.subscribe(keyCreations, (notice) => created.push(notice));

    bus.publish(keyChanges, { keyId: "key-1" });
    bus.deliver(keyChanges, "{not json");
    bus.deliver(keyChanges, JSON.stringify({ nothing: 1 }));
    bus.resync(keyChanges);
    expect(followed).toEqual([{ keyId: "key-1" }, null, null, null]);
    expect(subscribed).toEqual([{ keyId: "key-1" }]);
    expect(created).toEqual([]);

    unfollow();
    bus.publish(keyChanges, { orgId: "org-1" });
    expect(followed).toHaveLength(4);
    expect(subscribed).toEqual([{ keyId: "key-1" }, { orgId: "org-1" }]);
    expect(bus.closed).toBe(false);
    await bus.close();
    bus.publish(keyChanges, { orgId: "org-2" });
    expect(subscribed).toHaveLength(2);
    expect(bus.closed).toBe(true);
  });
});

describe("the in-memory key directory", () => {
  it("answers the keys it was given, by hash and by id, and tells of changes from the bus and its own", async () => {
    const keys = new MemoryKeyDirectory({ h1: activeKey({ id: "key-1" }) });
    keys.set("h2", activeKey({ id: "key-2" }));
    expect(keys.resolve("h1")).toMatchObject({ id: "key-1" });
    expect(keys.resolve("h3")).toBeNull();
    expect(await keys.resolveById("key-2")).toMatchObject({ keyHash: "h2", record: { id: "key-2" } });
    expect(await keys.resolveById("key-3")).toBeNull();
    expect([keys.knows("h1"), keys.knows("h3"), keys.isNoKey(), keys.knowsUnknown(), keys.indexed]).toEqual([
      true,
      false,
      false,
      false,
      null,
    ]);

    const bus = new MemoryBus();
    const changes: (KeyChange | null)[] = [];
    keys.onChange((change) => changes.push(change));
    const unfollow = await keys.follow(bus);
    bus.publish(keyChanges, { orgId: "org-a" });
    bus.resync(keyChanges);
    keys.revoke("key-1");
    expect(keys.resolve("h1")).toBeNull();
    unfollow();
    bus.publish(keyChanges, { orgId: "org-b" });
    expect(changes).toEqual([{ orgId: "org-a" }, null, { keyId: "key-1" }]);
  });
});
