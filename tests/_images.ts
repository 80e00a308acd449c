/**
 * Test images: a real 1×1 PNG, and PNG headers that claim large sizes
 * (image-size reads only the header).
 *
 * @module
 */

/** A valid 1×1 red PNG. */
export const TINY_PNG: Uint8Array = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** A PNG signature and IHDR claiming `width`×`height`, padded to `size` bytes. */
export function pngHeader(
  width: number,
  height: number,
  size = 64,
): Uint8Array {
  const bytes = new Uint8Array(Math.max(size, 33));
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set([0x49, 0x48, 0x44, 0x52], 12); // "IHDR"
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24);
  return bytes;
}
