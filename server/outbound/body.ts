// Reads a response body into memory, decompressing it as it streams and aborting as soon as the
// decompressed size passes the cap (a 1 KB gzip bomb never gets to inflate to gigabytes).
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { OutboundError } from './types.js';

const decoders: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** What we offer in `Accept-Encoding`: exactly the encodings we can undo. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

function decodersFor(contentEncoding: string | undefined): NodeJS.ReadWriteStream[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  // Codings are listed in the order they were applied; undo them in reverse.
  return codings.reverse().map((c) => {
    const make = decoders[c];
    if (!make) throw new OutboundError('network', `the upstream used an unsupported content-encoding: ${c}`);
    return make();
  });
}

export function tooLarge(maxBytes: number): OutboundError {
  return new OutboundError('too_large', `the response body is larger than ${maxBytes} bytes`);
}

export async function readCappedBody(body: Readable, contentEncoding: string | undefined, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const stages = decodersFor(contentEncoding);
  const chunks: Buffer[] = [];
  let size = 0;
  let raw = 0;
  // pipeline's overloads cannot type a variable number of stages; the chain is checked at runtime.
  const run = pipeline as unknown as (...stages: unknown[]) => Promise<void>;
  await run(
    body,
    // The compressed bytes count too: padding that inflates to nothing is still traffic.
    async function* countRaw(source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        raw += chunk.length;
        if (raw > maxBytes) throw tooLarge(maxBytes);
        yield chunk;
      }
    },
    ...stages,
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge(maxBytes);
        chunks.push(chunk);
      }
    },
    { signal },
  );
  return Buffer.concat(chunks);
}
