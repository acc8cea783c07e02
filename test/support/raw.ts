// A request with fetch, past the typed client: for what the client would refuse to send (unknown
// routes, odd spellings, malformed bodies and query strings). The body is parsed as JSON when it is.
import type { TestServer } from './server.js';

export interface RawReply {
  res: Response;
  text: string;
  body: { error?: { code: string; message: string; suggested_action?: string } } & Record<string, unknown>;
}

/** `token`: the server's own by default, `null` for none. */
export async function rawRequest(s: TestServer, path: string, init: RequestInit & { token?: string | null } = {}): Promise<RawReply> {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? s.token : init.token;
  if (token !== null) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(`${s.url}${path}`, { ...init, headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { res, text, body: body as RawReply['body'] };
}
