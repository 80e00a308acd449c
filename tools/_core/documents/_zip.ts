/**
 * The ZIP package of an Office Open XML document (DOCX, PPTX), read with
 * npm:fflate: its part names, and the text of the parts a reader asks for,
 * each decompressed on demand into a buffer no larger than its declared size.
 *
 * @module
 */

import { strFromU8, unzipSync } from "fflate";
import { formatBytes } from "../text.ts";
import { corrupt, encrypted, messageOf } from "./_errors.ts";

/** The largest part (decompressed) a reader will parse: a guard against ZIP bombs. */
export const MAX_PART_BYTES = 128 * 1024 * 1024;

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
  readonly #shown: string;
  readonly #format: string;

  private constructor(
    bytes: Uint8Array,
    sizes: Map<string, number>,
    shown: string,
    format: string,
  ) {
    this.#bytes = bytes;
    this.#sizes = sizes;
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
    } catch (error) {
      throw corrupt(
        shown,
        format,
        `its ZIP archive is damaged: ${messageOf(error)}`,
      );
    }
    return new OfficePackage(bytes, sizes, shown, format);
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
    const wanted = new Set([...names].filter((name) => this.#sizes.has(name)));
    this.checkSizes((name) => wanted.has(name));
    if (wanted.size === 0) return new Map();
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(this.#bytes, {
        filter: (file) => wanted.has(file.name),
      });
    } catch (error) {
      throw corrupt(
        this.#shown,
        this.#format,
        `a part of its ZIP archive is damaged: ${messageOf(error)}`,
      );
    }
    const out = new Map<string, string>();
    for (const name of wanted) {
      out.set(name, strFromU8(files[name] ?? new Uint8Array()));
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
