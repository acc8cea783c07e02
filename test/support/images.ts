// Images made in the test with sharp: a photo with GPS EXIF and an orientation, animated GIFs,
// a PNG whose header claims a huge size (a decompression bomb), noise that compresses badly.
import { crc32 } from 'node:zlib';
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
