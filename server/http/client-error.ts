// Requests Node's HTTP parser refuses before Express sees them (a request line that is not HTTP,
// a malformed header, headers or a URL over the limit) are answered in the envelope too, with an
// X-Request-Id and `Connection: close`, instead of Node's bare `400 Bad Request`.
// The limits are Node's: the request line and the headers together at most 16 KiB
// (`--max-http-header-size`); a URL is bounded by the same 16 KiB.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { AppError, badRequest } from '../errors.js';

/** Node's limit of the request line and headers together (bytes). */
export const MAX_HEADER_BYTES = 16 * 1024;

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

type ParserError = Error & { code?: string; rawPacket?: Buffer };

function refusalOf(err: ParserError): AppError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // No end of the request line within the limit: it is the URL that is too long.
    const firstLine = err.rawPacket ? err.rawPacket.indexOf('\r\n') : -1;
    if (firstLine === -1 || firstLine >= MAX_HEADER_BYTES / 2) {
      return badRequest(`The request line is too long: the URL, with the headers, must fit in ${MAX_HEADER_BYTES} bytes.`, { status: 414 });
    }
    return badRequest(`The request headers are too large: the request line and headers must fit in ${MAX_HEADER_BYTES} bytes.`, { status: 431 });
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return badRequest('The request took too long to arrive.', { status: 408 });
  return badRequest(`The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`);
}

export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: ParserError, socket: Duplex) => {
    // A connection reset or a socket already written to: nothing can be answered.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const id = `req_${randomBytes(16).toString('hex')}`;
    const e = refusalOf(err);
    logger.debug({ reqId: id, code: err.code, status: e.status }, 'request refused by the HTTP parser');
    const body = JSON.stringify(e.envelope());
    socket.end(
      `HTTP/1.1 ${e.status} ${REASONS[e.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
