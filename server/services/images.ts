// Images: what the bytes are (sniffed, never taken from a name or a Content-Type), whether they are
// safe to decode, and the re-encoding that strips their metadata and makes them fit a platform.
// sharp (libvips, prebuilt binaries from the npm registry as @img/sharp-*): reading the header
// (`metadata()`) decodes no pixel, so an image's size is known, and refused, before any decoding.
import sharp, { type Metadata, type Sharp } from 'sharp';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif';
export const CONTENT_TYPES: Record<ImageFormat, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

/** Most pixels (width × height × frames) an image may have: larger ones are refused before decoding (a decompression bomb). */
export const MAX_PIXELS = 50_000_000;
/** Most frames of an animated GIF or WebP. */
export const MAX_FRAMES = 300;
/** Longest side an upload may have. */
export const MAX_SIDE = 16_384;

/** The format from the first bytes (magic numbers); null for anything else (SVG, TIFF, HEIC, a PDF, a script…). */
export function sniffImage(buf: Buffer): ImageFormat | null {
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.subarray(0, 6).toString('latin1'))) return 'gif';
  if (buf.length >= 12 && buf.subarray(0, 4).toString('latin1') === 'RIFF' && buf.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

export class ImageError extends Error {
  constructor(
    /** `unsupported` (not one of the formats), `unreadable` (corrupt), `too_many_pixels`, `too_many_frames`. */
    readonly kind: 'unsupported' | 'unreadable' | 'too_many_pixels' | 'too_many_frames',
    message: string,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

export interface ImageInfo {
  format: ImageFormat;
  /** As displayed: EXIF orientation 5–8 swaps width and height. */
  width: number;
  height: number;
  frames: number;
}

/** Reads the header only (no pixel decoded): format, size, frames; refuses what is not safe to decode. */
export async function inspectImage(buf: Buffer): Promise<ImageInfo> {
  const format = sniffImage(buf);
  if (!format) throw new ImageError('unsupported', `is not a JPEG, PNG, WebP or GIF image (judged from its bytes, not its name or Content-Type)`);
  let meta: Metadata;
  try {
    meta = await sharp(buf, { animated: true, limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ImageError('unreadable', `is not a readable ${format.toUpperCase()} image (${(err as Error).message})`);
  }
  if (meta.format !== format || !meta.width || !meta.height) throw new ImageError('unreadable', `is not a readable ${format.toUpperCase()} image`);
  const frames = Math.max(1, meta.pages ?? 1);
  // With `animated`, sharp reports the height of all frames stacked: one frame's is pageHeight.
  const frameHeight = frames > 1 ? (meta.pageHeight ?? Math.floor(meta.height / frames)) : meta.height;
  const pixels = meta.width * frameHeight * frames;
  if (pixels > MAX_PIXELS || meta.width > MAX_SIDE || frameHeight > MAX_SIDE) {
    throw new ImageError(
      'too_many_pixels',
      `has ${meta.width}×${frameHeight} pixels${frames > 1 ? ` × ${frames} frames` : ''} (${pixels} in all); at most ${MAX_PIXELS} pixels and ${MAX_SIDE} on a side are accepted`,
    );
  }
  if (frames > MAX_FRAMES) throw new ImageError('too_many_frames', `has ${frames} frames; an animated image may have at most ${MAX_FRAMES}`);
  const swapped = (meta.orientation ?? 1) >= 5;
  return { format, width: swapped ? frameHeight : meta.width, height: swapped ? meta.width : frameHeight, frames };
}

function encoder(img: Sharp, format: ImageFormat, quality: number): Sharp {
  switch (format) {
    case 'jpeg':
      // libjpeg-turbo, not mozjpeg: mozjpeg's trellis search made a 24-megapixel re-encode take 13 s of CPU (BENCHMARKS.md).
      return img.jpeg({ quality });
    case 'png':
      return img.png({ compressionLevel: 9, adaptiveFiltering: true });
    case 'webp':
      return img.webp({ quality });
    case 'gif':
      return img.gif();
  }
}

/**
 * The bytes to keep: decoded and written again in the same format, with the EXIF orientation
 * applied to the pixels and every metadata block (EXIF with its GPS position, XMP, IPTC, comments)
 * left out (sharp writes none unless asked). Animated images keep their frames.
 */
export async function normalizeImage(buf: Buffer, info: ImageInfo): Promise<Buffer> {
  const img = sharp(buf, { animated: info.frames > 1, limitInputPixels: MAX_PIXELS }).rotate();
  return decoding(info.format, () => encoder(img, info.format, 90).toBuffer());
}

/**
 * Runs a decode of the image's pixels: libvips's errors (a broken PNG IDAT, a truncated JPEG, a
 * frame past the pixel limit: sharp's default `failOn: 'warning'` refuses what would decode as
 * garbage) are the image's fault, an ImageError (`unreadable`, a 422), never a 500.
 */
async function decoding<T>(format: ImageFormat, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const why = (err as Error).message.split('\n')[0]!.trim();
    throw new ImageError('unreadable', `is not a readable ${format.toUpperCase()} image: its pixels do not decode (${why})`);
  }
}

export interface FitLimits {
  /** Largest accepted file, in bytes. */
  maxBytes: number | null;
  maxWidth: number | null;
  maxHeight: number | null;
  /** Most pixels (width × height) of one image (null: none). */
  maxPixels?: number | null;
  /** Formats the platform takes; another is converted to the first. */
  formats: ImageFormat[];
}

export interface Fitted {
  bytes: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  /** Whether anything changed (false: the bytes are the input's). */
  changed: boolean;
}

/**
 * Makes an image fit a platform: scaled down (never up, aspect kept) into the largest size, converted
 * when its format is not taken, then re-encoded at lower quality (JPEG/WebP; a PNG becomes a JPEG
 * when lossless cannot fit, unless it has transparency, then it shrinks) until it is under the
 * byte limit. Throws when it cannot (a still image 64 px wide still too large).
 */
export async function fitImage(buf: Buffer, limits: FitLimits): Promise<Fitted> {
  const info = await inspectImage(buf);
  const animated = info.frames > 1;
  let format: ImageFormat = limits.formats.includes(info.format) ? info.format : limits.formats[0]!;
  const tooWide =
    (limits.maxWidth && info.width > limits.maxWidth) ||
    (limits.maxHeight && info.height > limits.maxHeight) ||
    (limits.maxPixels && info.width * info.height > limits.maxPixels);
  const tooHeavy = limits.maxBytes !== null && buf.length > limits.maxBytes;
  if (!tooWide && !tooHeavy && format === info.format) return { bytes: buf, format, width: info.width, height: info.height, changed: false };
  const meta = await sharp(buf).metadata();
  const opaque = !meta.hasAlpha;
  const shrink = limits.maxPixels && info.width * info.height > limits.maxPixels ? Math.sqrt(limits.maxPixels / (info.width * info.height)) : 1;
  let width = Math.min(Math.floor(info.width * shrink), limits.maxWidth ?? Infinity);
  let height = Math.min(Math.floor(info.height * shrink), limits.maxHeight ?? Infinity);
  let quality = 90;
  for (let attempt = 0; attempt < 12; attempt++) {
    const img = sharp(buf, { animated, limitInputPixels: MAX_PIXELS }).rotate().resize({ width, height, fit: 'inside', withoutEnlargement: true });
    const out = await decoding(info.format, () => encoder(img, format, quality).toBuffer({ resolveWithObject: true }));
    if (limits.maxBytes === null || out.data.length <= limits.maxBytes) {
      return { bytes: out.data, format, width: out.info.width, height: animated ? (out.info.pageHeight ?? out.info.height) : out.info.height, changed: true };
    }
    // Too heavy still: lossy formats lose quality first, then everything loses size.
    if (format === 'png' && opaque && limits.formats.includes('jpeg')) format = 'jpeg';
    else if ((format === 'jpeg' || format === 'webp') && quality > 60) quality -= 10;
    else {
      const scale = Math.max(0.5, Math.sqrt(limits.maxBytes / out.data.length) * 0.95);
      width = Math.max(1, Math.floor(out.info.width * scale));
      height = Math.max(1, Math.floor((animated ? (out.info.pageHeight ?? out.info.height) : out.info.height) * scale));
      if (width < 64 && height < 64) break;
    }
  }
  throw new ImageError('too_many_pixels', `cannot be made smaller than ${limits.maxBytes} bytes`);
}
