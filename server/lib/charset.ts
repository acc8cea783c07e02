// Which encoding a fetched document is in, by the rules of its kind, and its text.
//
// XML (feeds; RFC 7303 §3 and XML 1.0 appendix F): a byte order mark, then the charset of the
// HTTP Content-Type, then the `encoding` of the XML declaration, else UTF-8.
// HTML (/fetch; the WHATWG encoding sniffing algorithm, without its locale guess): a byte order
// mark, then the HTTP charset, then a `<meta charset>` (or `http-equiv="content-type"`) within the
// first 1024 bytes, else UTF-8 (what nearly every undeclared page is today).
//
// Labels are the WHATWG Encoding Standard's, resolved by Node's own `TextDecoder` (built with
// full ICU on the Node versions the service runs on: windows-1252 for `iso-8859-1`/`latin1`/
// `us-ascii`, GBK for `gb2312`, GB18030, Big5, Shift_JIS, EUC-JP, ISO-2022-JP, EUC-KR, the
// ISO-8859 and windows code pages, KOI8, UTF-16): no decoder of our own, no extra package. A
// label that names no encoding is skipped for the next rule, as the standards say.

export type CharsetSource = 'bom' | 'http' | 'xml' | 'meta' | 'default';

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used (`utf-8`, `windows-1252`, `gbk`, `shift_jis`, …). */
  encoding: string;
  /** Which rule decided it. */
  source: CharsetSource;
}

/** The WHATWG name of a label, or null when the label names no encoding Node can decode. */
export function encodingOf(label: string | null | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

function bomOf(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The `charset` parameter of a Content-Type header (quoted or not), or null. */
export function httpCharset(contentType: string | null | undefined): string | null {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function decode(body: Buffer, encoding: string, source: CharsetSource): Decoded {
  // The decoder drops a BOM of its own encoding; a replacement character stands for a byte it cannot map.
  return { text: new TextDecoder(encoding).decode(body), encoding, source };
}

/** The `encoding` of an XML declaration (`<?xml version="1.0" encoding="ISO-8859-1"?>`), UTF-16 without a BOM told by its first bytes. */
function xmlDeclared(body: Buffer): string | null {
  if (body[0] === 0x3c && body[1] === 0x00 && body[2] === 0x3f && body[3] === 0x00) return 'utf-16le';
  if (body[0] === 0x00 && body[1] === 0x3c && body[2] === 0x00 && body[3] === 0x3f) return 'utf-16be';
  const head = body.subarray(0, 1024).toString('latin1');
  const m = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(head);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** An XML document's text: BOM, then the HTTP charset, then the XML declaration, else UTF-8. */
export function decodeXml(body: Buffer, contentType: string | null): Decoded {
  const bom = bomOf(body);
  if (bom) return decode(body, bom, 'bom');
  const http = encodingOf(httpCharset(contentType));
  if (http) return decode(body, http, 'http');
  const declared = encodingOf(xmlDeclared(body));
  if (declared) return decode(body, declared, 'xml');
  return decode(body, 'utf-8', 'default');
}

/**
 * The charset a `<meta>` of the first 1024 bytes declares (WHATWG "prescan a byte stream"):
 * `<meta charset="…">`, or `<meta http-equiv="content-type" content="…; charset=…">`. Comments
 * are skipped. A UTF-16 declaration means UTF-8 (the bytes read as ASCII, so it is not UTF-16),
 * and `x-user-defined` windows-1252, as the standard says.
 */
export function metaCharset(body: Buffer): string | null {
  const head = body
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(tag);
    const value = (m: RegExpExecArray | null) => (m ? (m[1] ?? m[2] ?? m[3] ?? '') : null);
    let label = value(attr('charset'));
    if (label === null && /^content-type$/i.test(value(attr('http-equiv')) ?? '')) {
      const m = /charset\s*=\s*["']?([^"';\s]+)/i.exec(value(attr('content')) ?? '');
      label = m ? m[1]! : null;
    }
    const enc = encodingOf(label);
    if (!enc) continue;
    if (enc === 'utf-16le' || enc === 'utf-16be') return 'utf-8';
    return enc === 'x-user-defined' ? 'windows-1252' : enc;
  }
  return null;
}

/** An HTML page's text: BOM, then the HTTP charset, then `<meta charset>`, else UTF-8. */
export function decodeHtml(body: Buffer, contentType: string | null): Decoded {
  const bom = bomOf(body);
  if (bom) return decode(body, bom, 'bom');
  const http = encodingOf(httpCharset(contentType));
  if (http) return decode(body, http, 'http');
  const meta = metaCharset(body);
  if (meta) return decode(body, meta, 'meta');
  return decode(body, 'utf-8', 'default');
}

/** Plain text (text/plain, text/markdown): BOM, then the HTTP charset, else UTF-8. */
export function decodePlain(body: Buffer, contentType: string | null): Decoded {
  const bom = bomOf(body);
  if (bom) return decode(body, bom, 'bom');
  const http = encodingOf(httpCharset(contentType));
  return http ? decode(body, http, 'http') : decode(body, 'utf-8', 'default');
}
