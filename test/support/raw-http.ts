// HTTP/1.1 written by hand on a socket (node:net), for what an HTTP client refuses to do: a body
// shorter or longer than its Content-Length, Content-Length with Transfer-Encoding, a half-close,
// a trickle, a connection dropped mid-body. `exchange` plays a script of steps and tells what
// came back: the answers (status, headers, body; several when the connection carried more than
// one) and how the connection ended.
import net from 'node:net';

export type Step =
  /** Bytes written as they are, waiting for the socket to take them. */
  | Buffer
  /** Text (the request head), written as Latin-1. */
  | { text: string }
  /** `n` bytes of filler, written in pieces of 64 KiB. */
  | { fill: number }
  /** A pause. */
  | { wait: number }
  /** A byte every `every` ms, `count` times. */
  | { trickle: number; every: number }
  /** Half-close: FIN, then wait for the server's answer and close. */
  | 'end'
  /** Close now (the client vanishes: nothing more is read). */
  | 'destroy';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  answers: RawAnswer[];
  /** The raw bytes received. */
  raw: string;
  /** How it ended: the client dropped it, the server closed it (FIN), or it was reset. */
  ended: 'client' | 'server-closed' | 'reset' | 'timeout';
}

/** The request head (request line and headers, CRLF-terminated, blank line included). */
export function head(method: string, target: string, headers: Record<string, string | number>): { text: string } {
  return {
    text: `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  };
}

/** Splits what came back into answers (bodies framed by Content-Length, as the server sends them). */
export function parseAnswers(raw: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const lines = raw.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
    }
    const len = Number(headers['content-length'] ?? 0);
    answers.push({ status, headers, body: raw.subarray(end + 4, end + 4 + len).toString('utf8') });
    at = end + 4 + len;
  }
  return answers;
}

export async function exchange(port: number, steps: Step[], opts: { closeWithinMs?: number } = {}): Promise<Exchange> {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let reset = false;
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => (reset = true));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const write = (b: Buffer | string) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.write(b, () => resolve());
    });
  const result = (ended: Exchange['ended']): Exchange => {
    const raw = Buffer.concat(chunks);
    return { answers: parseAnswers(raw), raw: raw.toString('latin1'), ended };
  };
  for (const step of steps) {
    if (socket.destroyed) break;
    if (step === 'destroy') {
      socket.destroy();
      await closed;
      return result('client');
    }
    if (step === 'end') {
      socket.end();
      break;
    }
    if (Buffer.isBuffer(step)) await write(step);
    else if ('text' in step) await write(Buffer.from(step.text, 'latin1'));
    else if ('fill' in step) {
      const piece = Buffer.alloc(64 * 1024, 0x61);
      for (let left = step.fill; left > 0 && !socket.destroyed; left -= piece.length) await write(left >= piece.length ? piece : piece.subarray(0, left));
    } else if ('wait' in step) await new Promise((r) => setTimeout(r, step.wait));
    else
      for (let i = 0; i < step.trickle && !socket.destroyed; i++) {
        await write('a');
        await new Promise((r) => setTimeout(r, step.every));
      }
  }
  // The server's turn: it answers and closes, or keeps the connection open (then we close it).
  const within = opts.closeWithinMs ?? 15_000;
  const timedOut = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), within))]);
  if (timedOut) {
    socket.destroy();
    await closed;
    return result('timeout');
  }
  return result(reset ? 'reset' : 'server-closed');
}
