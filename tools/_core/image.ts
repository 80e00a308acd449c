/**
 * Images for a multimodal model: base64 content blocks with their
 * dimensions, refused with the limit when a model would reject them.
 *
 * @module
 */

import { base64Image, type ContentBlock, ToolError } from "../kernel/tool.ts";
import type { ImageMediaType } from "./file_type.ts";
import { formatBytes } from "./text.ts";

/** The largest image sent: 5 MB once base64-encoded, the Messages API's limit. */
export const MAX_IMAGE_BYTES = Math.floor(5 * 1024 * 1024 * 3 / 4);
/** The longest side a model accepts, in pixels. */
export const MAX_IMAGE_SIDE = 8000;

/** An image ready for a model. */
export interface ImageRead {
  block: ContentBlock;
  width: number;
  height: number;
  bytes: number;
  mediaType: ImageMediaType;
}

/** Base64 of bytes, in chunks (String.fromCharCode has an argument limit). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Width and height of an image, or zeros when the header cannot be read. */
export async function imageDimensions(
  bytes: Uint8Array,
): Promise<{ width: number; height: number }> {
  const { imageSize } = await import("image-size");
  try {
    const size = imageSize(bytes);
    return { width: size.width ?? 0, height: size.height ?? 0 };
  } catch {
    return { width: 0, height: 0 };
  }
}

/**
 * Makes an image block of `bytes`. Throws a {@linkcode ToolError} that
 * states the limit when the image is too large for a model.
 */
export async function imageBlock(
  bytes: Uint8Array,
  mediaType: ImageMediaType,
  shown: string,
): Promise<ImageRead> {
  const { width, height } = await imageDimensions(bytes);
  if (
    bytes.length > MAX_IMAGE_BYTES || width > MAX_IMAGE_SIDE ||
    height > MAX_IMAGE_SIDE
  ) {
    throw new ToolError(
      `${shown} is too large for a model: ${
        formatBytes(bytes.length)
      }, ${width}×${height} px; the limit is ${
        formatBytes(MAX_IMAGE_BYTES)
      } (5 MB base64) and ${MAX_IMAGE_SIDE} px a side. Make a smaller copy (for example with ImageMagick in Bash) and read that.`,
      { type: "image_too_large", bytes: bytes.length, width, height },
    );
  }
  return {
    block: base64Image(mediaType, toBase64(bytes)),
    width,
    height,
    bytes: bytes.length,
    mediaType,
  };
}
