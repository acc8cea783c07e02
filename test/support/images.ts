// Images made in the test with sharp: a photo with GPS EXIF and an orientation, animated GIFs,
// a PNG whose header claims a huge size (a decompression bomb), noise that compresses badly.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { V1 } from './api.js';
import type { TestServer } from './server.js';

/** A JPEG `w`×`h` as stored, shown rotated (EXIF orientation 6), with a camera make and a GPS position in its EXIF. */
export function photoWithGps(w = 40, h = 20): Promise<Buffer> {
  return sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 80, b: 30 } } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Pocket 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 300/100' },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** Whether EXIF bytes hold a GPS IFD pointer (tag 0x8825, either byte order). */
export const hasGpsIfd = (exif: Buffer | undefined) => !!exif && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])));

/** An animated GIF of `n` frames of `w`×`h`. */
export async function animatedGif(n: number, w = 8, h = 6): Promise<Buffer> {
  const colours = ['red', 'green', 'blue', 'yellow'];
  const frames = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      sharp({ create: { width: w, height: h, channels: 3, background: colours[i % 4]! } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(frames, { join: { animated: true } })
    .gif()
    .toBuffer();
}

/** A real 1×1 PNG whose IHDR claims `w`×`h` (CRC fixed): a decoder would allocate w×h pixels. */
export async function pngBomb(w: number, h: number): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: 'white' } })
      .png()
      .toBuffer(),
  );
  png.writeUInt32BE(w, 16);
  png.writeUInt32BE(h, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** A PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A PNG `w`×`h` (8-bit, `colorType` 0 grey, 2 RGB, 6 RGBA) whose IDAT is `raw` deflated (each row: a filter byte, then the pixels). */
export function rawPng(w: number, h: number, colorType: 0 | 2 | 6, raw: Buffer, bitDepth: 8 | 16 = 8): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 64×48 RGB PNG whose IDAT's deflate stream is garbled (its CRC fixed, so only the pixels are broken). */
export function brokenIdatPng(): Buffer {
  const png = rawPng(64, 48, 2, Buffer.alloc((64 * 3 + 1) * 48, 7));
  const at = png.indexOf('IDAT');
  const len = png.readUInt32BE(at - 4);
  for (let i = at + 6; i < at + 4 + len; i++) png[i]! ^= 0x5a;
  png.writeUInt32BE(crc32(png.subarray(at, at + 4 + len)), at + 4 + len);
  return png;
}

/**
 * A PNG whose IDAT inflates to `inflated` bytes (512 MiB: ~0.5 MB on the wire) for an image that
 * claims `w`×`h` greyscale pixels: the decoder must stop at what the header allows.
 */
export function inflatingPng(w: number, h: number, inflated = 512 * 1024 * 1024): Buffer {
  return rawPng(w, h, 0, Buffer.alloc(inflated));
}

/** A JPEG cut in half, as an upload that broke off and was saved anyway. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await noise(320, 240);
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/** Random noise `w`×`h` as JPEG (quality 95) or PNG: big files, as photos are. */
export function noise(w: number, h: number, format: 'jpeg' | 'png' = 'jpeg'): Promise<Buffer> {
  const raw = Buffer.alloc(w * h * 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 95 }).toBuffer();
}

/** POST /media with raw bytes; the answer's status, headers and JSON. */
export async function upload(srv: TestServer, body: Buffer, query: Record<string, string> = {}, contentType = 'image/jpeg', token = srv.token) {
  const qs = new URLSearchParams({ idempotency_key: newIdempotencyKey(), ...query });
  const res = await fetch(`${srv.url}${V1}/media?${qs}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType },
    body: new Uint8Array(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
}
