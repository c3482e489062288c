import { createHash } from "node:crypto";
import { constants, crc32, deflateRawSync } from "node:zlib";

// Bodies at least this large are gzipped for clients that accept it.
export const COMPRESS_FROM_BYTES = 1_024;

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/**
 * The `data` of an answer, serialised once and served to every request until the view changes.
 * Every answer ends with its own `meta` (the key's count), so a body is this payload's bytes
 * followed by a few bytes of meta: `{"data":…` + `,"meta":{…}}`.
 *
 * Gzip works the same way without compressing per request: the data is deflated once, ending on a
 * byte boundary (a sync flush), and each answer appends its meta as a final stored (uncompressed)
 * deflate block, with the CRC-32 continued from the data's. One valid gzip member, whatever meta.
 */
export class Payload {
  readonly bytes: Buffer;
  readonly etag: string;
  private deflated: { bytes: Buffer; crc: number } | undefined;

  constructor(data: unknown) {
    this.bytes = Buffer.from(`{"data":${JSON.stringify(data)}`);
    this.etag = `W/"${createHash("sha256").update(this.bytes).digest("base64url").slice(0, 27)}"`;
  }

  /** The whole body, with `meta` appended: chunks to write in order. */
  body(meta: unknown, gzip: boolean): Buffer[] {
    const tail = Buffer.from(`,"meta":${JSON.stringify(meta)}}`);
    if (!gzip) return [this.bytes, tail];
    this.deflated ??= {
      bytes: deflateRawSync(this.bytes, { finishFlush: constants.Z_SYNC_FLUSH }),
      crc: crc32(this.bytes),
    };
    const stored = Buffer.allocUnsafe(5);
    stored[0] = 0x01; // BFINAL = 1, BTYPE = 00 (stored); the data's deflate ended byte-aligned
    stored.writeUInt16LE(tail.length, 1);
    stored.writeUInt16LE(~tail.length & 0xffff, 3);
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(crc32(tail, this.deflated.crc) >>> 0, 0);
    trailer.writeUInt32LE((this.bytes.length + tail.length) % 2 ** 32, 4);
    return [GZIP_HEADER, this.deflated.bytes, stored, tail, trailer];
  }

  get compressible(): boolean {
    return this.bytes.length >= COMPRESS_FROM_BYTES;
  }
}
