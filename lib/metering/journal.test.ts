import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withWriteSync, writeCalls } from "../../testing/write-faults.ts";
import { claimOrphans, Journal, readJournal } from "./journal.ts";

const folder = () => mkdtempSync(path.join(tmpdir(), "journal-"));

// A pid no process has: one that just ended.
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("the metering journal", () => {
  it("reads back what was appended, from any offset, and counts its bytes", async () => {
    const journal = Journal.create(folder());
    journal.append("key_a", 1_700_000_000_000);
    journal.commit();
    const afterFirst = journal.size;
    journal.append("key_b", 1_700_000_000_001);
    journal.commit();
    expect(readJournal(journal.file, 0)).toEqual({
      records: [
        { keyId: "key_a", at: 1_700_000_000_000 },
        { keyId: "key_b", at: 1_700_000_000_001 },
      ],
      end: journal.size,
    });
    expect(readJournal(journal.file, afterFirst).records).toEqual([{ keyId: "key_b", at: 1_700_000_000_001 }]);
    expect(readJournal(journal.file, 0, afterFirst).records).toEqual([{ keyId: "key_a", at: 1_700_000_000_000 }]);
    await journal.sync();
    journal.close();
    await journal.sync(); // a closed journal has nothing left to sync
  });

  it("writes nothing until a commit, then every line appended since in one write", () => {
    const journal = Journal.create(folder());
    journal.append("key_a", 1);
    journal.append("key_b", 2);
    expect(readFileSync(journal.file, "utf8")).toBe("");
    expect(journal.size).toBe(0);
    const writes = writeCalls(() => journal.commit());
    expect(writes).toBe(1);
    expect(readFileSync(journal.file, "utf8")).toBe("key_a 1\nkey_b 2\n");
    expect(journal.size).toBe(16);
    expect(writeCalls(() => journal.commit())).toBe(0); // nothing new: no write at all
    journal.close();
  });

  it("keeps none of a batch it could not write whole, so the next one starts on a line of its own", () => {
    const journal = Journal.create(folder());
    journal.append("key_a", 1);
    journal.commit();
    journal.append("key_b", 2);
    journal.append("key_c", 3);
    // A disk that takes part of the batch, then refuses the rest.
    withWriteSync(
      (real) => (fd, text: string) => real(fd, text.slice(0, 10)),
      () => expect(() => journal.commit()).toThrow(/short \(10 of 16 bytes\)/),
    );
    expect(readFileSync(journal.file, "utf8")).toBe("key_a 1\n");
    expect(journal.size).toBe(8);
    journal.append("key_d", 4);
    journal.commit();
    expect(readJournal(journal.file, 0).records).toEqual([
      { keyId: "key_a", at: 1 },
      { keyId: "key_d", at: 4 },
    ]);
    journal.close();
  });

  it("ignores a last line cut short, and refuses a file that is not a journal", () => {
    const journal = Journal.create(folder());
    journal.append("key_a", 5);
    journal.commit();
    journal.close();
    appendFileSync(journal.file, "key_b 6");
    expect(readJournal(journal.file, 0)).toEqual({ records: [{ keyId: "key_a", at: 5 }], end: journal.size });
    appendFileSync(journal.file, "\nnot a line\n");
    expect(() => readJournal(journal.file, 0)).toThrow(/not a journal line/);
  });

  it("claims the journals of processes that are gone, never a live one's, and each only once", () => {
    const dir = folder();
    const dead = deadPid();
    writeFileSync(path.join(dir, `${dead}-abc123.journal`), "key_a 1\n");
    writeFileSync(path.join(dir, `${dead}-def456.journal.recovering`), "key_b 2\n");
    // The test runner's parent is alive and is not this process.
    writeFileSync(path.join(dir, `${process.ppid}-live01.journal`), "key_c 3\n");
    writeFileSync(path.join(dir, "notes.txt"), "");

    const claimed = claimOrphans(dir);
    expect(claimed.map((c) => c.id).sort()).toEqual(["abc123", "def456"]);
    for (const orphan of claimed) {
      expect(path.basename(orphan.file)).toBe(`${process.pid}-${orphan.id}.journal.recovering`);
      expect(existsSync(orphan.file)).toBe(true);
    }
    expect(readdirSync(dir)).toContain(`${process.ppid}-live01.journal`);
    // A journal with this process's own pid is a predecessor's (pids are reused): claimable again,
    // which is how a claim interrupted by a crash is finished by the next start.
    expect(
      claimOrphans(dir)
        .map((c) => c.id)
        .sort(),
    ).toEqual(["abc123", "def456"]);
  });
});
