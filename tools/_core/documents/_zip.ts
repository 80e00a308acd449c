/**
 * The ZIP package of an Office Open XML document (DOCX, PPTX), read with
 * npm:fflate: its part names, and the text of the parts a reader asks for,
 * each decompressed on demand here, bytes counted as they come: a part
 * that unpacks past its declared size (a ZIP bomb that lies in its
 * directory) is refused as soon as it does, having cost no more than that
 * size and one chunk.
 *
 * @module
 */

import { Inflate, strFromU8, unzipSync, zipSync } from "fflate";
import { formatBytes } from "../text.ts";
import { corrupt, encrypted, messageOf } from "./_errors.ts";

/** The largest part (decompressed) a reader will parse: a guard against ZIP bombs. */
export const MAX_PART_BYTES = 128 * 1024 * 1024;

/** The most compressed bytes inflated at a time: DEFLATE's 1032:1 makes each step's output at most about 4 MiB. */
const INFLATE_STEP = 4096;

/** Where a part's data lies in the archive, and how it is stored (from the central directory). */
interface Entry {
  /** 0: stored, 8: DEFLATE. */
  method: number;
  /** Bit 0: the entry is encrypted. */
  flags: number;
  compressedSize: number;
  /** The unpacked size the directory declares. */
  size: number;
  /** The offset of its local header. */
  header: number;
}

/**
 * The entries of a ZIP archive's central directory, by name (the last of
 * a name wins, as with fflate), ZIP64 sizes and offsets read; throws an
 * Error saying what is wrong with a directory it cannot walk.
 */
function centralDirectory(bytes: Uint8Array): Map<string, Entry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = bytes.length - 22;
  const lowest = Math.max(0, eocd - 65535);
  while (eocd >= lowest && view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  if (eocd < lowest) throw new Error("it has no end of central directory");
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if (
    (count === 0xffff || offset === 0xffffffff) && eocd >= 20 &&
    view.getUint32(eocd - 20, true) === 0x07064b50
  ) {
    const at = Number(view.getBigUint64(eocd - 12, true));
    if (at + 56 > bytes.length || view.getUint32(at, true) !== 0x06064b50) {
      throw new Error("its ZIP64 directory record is missing");
    }
    count = Number(view.getBigUint64(at + 32, true));
    offset = Number(view.getBigUint64(at + 48, true));
  }
  if (count > Math.floor(bytes.length / 46)) {
    throw new Error("its directory lists more entries than the file can hold");
  }
  const entries = new Map<string, Entry>();
  const decoder = new TextDecoder();
  for (let k = 0; k < count; k++) {
    if (
      offset + 46 > bytes.length || view.getUint32(offset, true) !== 0x02014b50
    ) {
      throw new Error("its central directory is damaged");
    }
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const entry: Entry = {
      flags: view.getUint16(offset + 8, true),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      size: view.getUint32(offset + 24, true),
      header: view.getUint32(offset + 42, true),
    };
    const name = decoder.decode(
      bytes.subarray(offset + 46, offset + 46 + nameLength),
    );
    // ZIP64: the fields set to 0xffffffff follow in the extra field 0x0001.
    let extra = offset + 46 + nameLength;
    const extraEnd = Math.min(extra + extraLength, bytes.length);
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true);
      const length = view.getUint16(extra + 2, true);
      if (id === 0x0001) {
        let at = extra + 4;
        const next = () => {
          if (at + 8 > extraEnd) return undefined;
          const value = Number(view.getBigUint64(at, true));
          at += 8;
          return value;
        };
        if (entry.size === 0xffffffff) entry.size = next() ?? entry.size;
        if (entry.compressedSize === 0xffffffff) {
          entry.compressedSize = next() ?? entry.compressedSize;
        }
        if (entry.header === 0xffffffff) entry.header = next() ?? entry.header;
      }
      extra += 4 + length;
    }
    entries.set(name, entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const EMPTY_ZIP = [0x50, 0x4b, 0x05, 0x06];
const CFB = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** "EncryptedPackage" in UTF-16LE: the stream an encrypted OOXML file keeps inside its CFB container. */
const ENCRYPTED_PACKAGE = new Uint8Array(
  [..."EncryptedPackage"].flatMap((c) => [c.charCodeAt(0), 0]),
);

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function contains(bytes: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  for (
    let i = bytes.indexOf(first);
    i !== -1 && i <= bytes.length - needle.length;
    i = bytes.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}

/** An opened OOXML package. */
export class OfficePackage {
  readonly #bytes: Uint8Array;
  readonly #sizes: Map<string, number>;
  readonly #entries: Map<string, Entry>;
  readonly #shown: string;
  readonly #format: string;

  private constructor(
    bytes: Uint8Array,
    sizes: Map<string, number>,
    entries: Map<string, Entry>,
    shown: string,
    format: string,
  ) {
    this.#bytes = bytes;
    this.#sizes = sizes;
    this.#entries = entries;
    this.#shown = shown;
    this.#format = format;
  }

  /**
   * Opens `bytes` as the package of a `format` document ("DOCX").
   * Guarantees: a password-protected Office file (a CFB container holding
   * an EncryptedPackage) is an "encrypted" ToolError; a legacy
   * binary Office file, anything else that is not a ZIP archive, or a
   * damaged archive is a "corrupt" one. Nothing is decompressed yet.
   */
  static open(bytes: Uint8Array, shown: string, format: string): OfficePackage {
    if (startsWith(bytes, CFB)) {
      if (contains(bytes, ENCRYPTED_PACKAGE)) throw encrypted(shown, format);
      throw corrupt(
        shown,
        format,
        "it is a legacy binary Office file (DOC, PPT, XLS), not an Office Open XML package",
      );
    }
    if (!startsWith(bytes, ZIP) && !startsWith(bytes, EMPTY_ZIP)) {
      throw corrupt(shown, format, "it is not a ZIP archive");
    }
    const sizes = new Map<string, number>();
    // A central directory entry takes at least 46 bytes: a count beyond what
    // the file can hold is a forged directory, which would otherwise be
    // walked for billions of entries.
    const most = Math.floor(bytes.length / 46);
    let seen = 0;
    let entries: Map<string, Entry>;
    try {
      unzipSync(bytes, {
        filter(file) {
          if (++seen > most) {
            throw new Error(
              "its directory lists more entries than the file can hold",
            );
          }
          sizes.set(file.name, file.originalSize);
          return false;
        },
      });
      entries = bytes.length === 0 || startsWith(bytes, EMPTY_ZIP)
        ? new Map()
        : centralDirectory(bytes);
    } catch (error) {
      throw corrupt(
        shown,
        format,
        `its ZIP archive is damaged: ${messageOf(error)}`,
      );
    }
    return new OfficePackage(bytes, sizes, entries, shown, format);
  }

  /**
   * Refuses the package when a part that `which` picks unpacks (by its
   * declared size) to more than {@linkcode MAX_PART_BYTES}: a "corrupt"
   * ToolError naming the part.
   */
  checkSizes(which: (name: string) => boolean): void {
    for (const [name, size] of this.#sizes) {
      if (which(name) && size > MAX_PART_BYTES) {
        throw corrupt(
          this.#shown,
          this.#format,
          `its part ${name} unpacks to ${
            formatBytes(size)
          }, over the 128 MiB a document part may have`,
        );
      }
    }
  }

  /** Whether the package has a part of this name (no leading slash). */
  has(name: string): boolean {
    return this.#sizes.has(name);
  }

  /** The names of every part, in archive order. */
  names(): string[] {
    return [...this.#sizes.keys()];
  }

  /**
   * The UTF-8 text of each named part that exists (missing names are left
   * out). Guarantees: a part declared larger than {@linkcode MAX_PART_BYTES},
   * or one that does not decompress, is a "corrupt" ToolError.
   */
  texts(names: Iterable<string>): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, bytes] of this.parts(names)) {
      out.set(name, strFromU8(bytes));
    }
    return out;
  }

  /**
   * The unpacked bytes of each named part that exists (missing names are
   * left out). Guarantees: a part declared larger than
   * {@linkcode MAX_PART_BYTES}, one that unpacks to more than it declares
   * (found while it unpacks, stopped there), one encrypted or compressed
   * other than stored or DEFLATE, and one that does not decompress, is a
   * "corrupt" ToolError naming it; no more than its declared size (and one
   * step) is ever unpacked.
   */
  parts(names: Iterable<string>): Map<string, Uint8Array> {
    const wanted = new Set([...names].filter((name) => this.#sizes.has(name)));
    this.checkSizes((name) => wanted.has(name));
    const out = new Map<string, Uint8Array>();
    for (const name of wanted) out.set(name, this.#unpack(name));
    return out;
  }

  /**
   * A ZIP archive (stored, not compressed) of the parts `which` picks,
   * each unpacked and checked by {@linkcode parts}, and of the others as
   * empty files: what a reader with its own ZIP reader (mammoth) is given,
   * so that it never unpacks anything unchecked.
   */
  checkedPackage(which: (name: string) => boolean): Uint8Array {
    const names = this.names();
    const parts = this.parts(names.filter(which));
    const files: Record<string, Uint8Array> = {};
    for (const name of names) files[name] = parts.get(name) ?? new Uint8Array();
    return zipSync(files, { level: 0 });
  }

  /** One part's bytes, inflated step by step and counted against its declared size. */
  #unpack(name: string): Uint8Array {
    const entry = this.#entries.get(name);
    const damaged = (why: string) =>
      corrupt(this.#shown, this.#format, `its part ${name} ${why}`);
    if (!entry) throw damaged("is not in its central directory");
    if (entry.flags & 1) throw damaged("is encrypted");
    const view = new DataView(
      this.#bytes.buffer,
      this.#bytes.byteOffset,
      this.#bytes.byteLength,
    );
    const at = entry.header;
    if (
      at + 30 > this.#bytes.length || view.getUint32(at, true) !== 0x04034b50
    ) {
      throw damaged("has no local header where its directory says");
    }
    const start = at + 30 + view.getUint16(at + 26, true) +
      view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > this.#bytes.length) throw damaged("is truncated");
    const data = this.#bytes.subarray(start, end);
    const limit = Math.min(entry.size, MAX_PART_BYTES);
    const over = () =>
      damaged(
        `unpacks to more than the ${
          formatBytes(entry.size)
        } its directory declares`,
      );
    if (entry.method === 0) {
      if (data.length > limit) throw over();
      return data.slice();
    }
    if (entry.method !== 8) {
      throw damaged(`uses compression method ${entry.method}, not DEFLATE`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    let exceeded = false;
    const inflate = new Inflate((chunk) => {
      total += chunk.length;
      if (total > limit) exceeded = true;
      else chunks.push(chunk);
    });
    try {
      for (let i = 0; i < data.length && !exceeded; i += INFLATE_STEP) {
        const last = i + INFLATE_STEP >= data.length;
        inflate.push(data.subarray(i, i + INFLATE_STEP), last);
      }
      if (data.length === 0) inflate.push(new Uint8Array(), true);
    } catch (error) {
      if (!exceeded) throw damaged(`does not decompress: ${messageOf(error)}`);
    }
    if (exceeded) throw over();
    const out = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  /** The UTF-8 text of one part, or a "corrupt" ToolError naming it when it is missing. */
  text(name: string): string {
    const text = this.texts([name]).get(name);
    if (text === undefined) {
      throw corrupt(this.#shown, this.#format, `it has no ${name}`);
    }
    return text;
  }
}
