// POST /fetch: download a public page through the SSRF-safe outbound client, then structure it in
// the chosen mode. Refused URLs are 422 naming `url`; upstream trouble is 502 with the upstream
// status when there is one (docs/outbound-and-fetch.md).
import type { components } from '../../../generated/api.js';
import { AppError, backendUnavailable, validationFailed } from '../../errors.js';
import { decodeHtml, decodePlain } from '../../lib/charset.js';
import { OutboundError, type OutboundErrorKind, type OutboundResponse } from '../../outbound/types.js';
import type { Caller, ServiceDeps } from '../context.js';
import type { SchemaDefinition } from './builtin-schemas.js';
import { extractFields } from './css.js';
import { extractWithModel, noProvider } from './llm.js';
import type * as PageModule from './page.js';
import { resolveSchema } from './schemas.js';
import { clip } from './values.js';

type FetchRequest = components['schemas']['FetchRequest'];
type FetchResult = components['schemas']['FetchResult'];
type Mode = FetchResult['mode'];

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown']);
/** Refusals that are about the URL the caller gave (422), as opposed to upstream trouble (502). */
const URL_REFUSALS = new Set<OutboundErrorKind>(['invalid_url', 'scheme_not_allowed', 'address_not_allowed']);

/** `auto` → css with a schema; llm with a provider and an intent; else markdown. */
export function chooseMode(req: FetchRequest, providerConfigured: boolean): Mode {
  const requested = req.mode ?? 'auto';
  if (requested === 'auto') return req.schema_id ? 'css' : providerConfigured && req.intent ? 'llm' : 'markdown';
  if (requested === 'css' && !req.schema_id) throw validationFailed('body.schema_id', 'is required when mode is css');
  if (requested === 'llm') {
    if (!providerConfigured) throw noProvider();
    if (!req.intent && !req.schema_id) throw validationFailed('body.intent', 'is required when mode is llm (or give schema_id)');
  }
  return requested;
}

export function fromOutbound(err: OutboundError): AppError {
  if (URL_REFUSALS.has(err.kind)) return validationFailed('body.url', `is refused: ${err.message}`);
  return backendUnavailable(`The page could not be fetched: ${err.message}`);
}

async function download(deps: ServiceDeps, url: string): Promise<OutboundResponse> {
  let res: OutboundResponse;
  try {
    res = await deps.outbound.request({ url, headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.1' } });
  } catch (err) {
    if (err instanceof OutboundError) throw fromOutbound(err);
    throw err;
  }
  if (res.status < 200 || res.status > 299) throw backendUnavailable(`The page answered HTTP ${res.status}.`, { upstreamStatus: res.status });
  return res;
}

type Kind = 'html' | 'text';

/** HTML or text by Content-Type (no header: HTML when the body starts with `<`); anything else is refused. */
function classify(res: OutboundResponse): { kind: Kind; contentType: string } {
  const header = res.headers.get('content-type');
  const mime = header?.split(';')[0].trim().toLowerCase() ?? '';
  if (!mime) {
    const head = res.body
      .subarray(0, 512)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (head.startsWith('<')) return { kind: 'html', contentType: 'text/html' };
    throw validationFailed(
      'body.url',
      'points to content without a Content-Type that is not HTML; /fetch structures HTML and passes plain text and Markdown through.',
    );
  }
  const contentType = clip(header ?? mime, 256);
  if (HTML_TYPES.has(mime)) return { kind: 'html', contentType };
  if (TEXT_TYPES.has(mime)) return { kind: 'text', contentType };
  throw validationFailed('body.url', `points to ${mime} content; /fetch structures HTML and passes plain text and Markdown through.`);
}

/**
 * The body as text. HTML by the WHATWG rules (BOM, then the HTTP charset, then `<meta charset>`
 * in the first 1024 bytes, else UTF-8); plain text by its BOM or HTTP charset, else UTF-8.
 */
function decode(res: OutboundResponse, kind: Kind): string {
  const contentType = res.headers.get('content-type');
  return (kind === 'html' ? decodeHtml(res.body, contentType) : decodePlain(res.body, contentType)).text;
}

// The HTML readers (cheerio, linkedom, Readability, Turndown) load with the first fetch, not at
// start: they were a fifth of the server's start-up (issue 27).
let pageModule: Promise<typeof PageModule> | undefined;
const loadPage = () => (pageModule ??= import('./page.js'));

export async function fetchUrl(deps: ServiceDeps, caller: Caller, req: FetchRequest): Promise<FetchResult> {
  const mode = chooseMode(req, deps.config.llm !== null);
  // Resolve the schema before going out, so an unknown id costs no fetch.
  const schema: SchemaDefinition | null = req.schema_id && mode !== 'markdown' ? await resolveSchema(deps, caller, req.schema_id) : null;
  const res = await download(deps, req.url);
  const { kind, contentType } = classify(res);
  if (kind === 'text' && mode === 'css') throw validationFailed('body.url', `points to ${contentType} content, which has no HTML for mode css.`);
  const text = decode(res, kind);
  const { clipMarkdown, mainContent, pageMeta, parsePage } = await loadPage();
  const result: FetchResult = {
    url: req.url,
    final_url: res.url,
    status: res.status,
    content_type: contentType,
    mode,
    title: null,
    byline: null,
    published_at: null,
    canonical_url: null,
    language: null,
    markdown: null,
    truncated: false,
    fields: null,
    links: [],
    images: [],
    fetched_at: deps.clock.now().toISOString(),
  };
  if (kind === 'text') {
    if (mode === 'llm') result.fields = await extractWithModel(deps, { text, intent: req.intent, schema, base: res.url });
    else Object.assign(result, clipMarkdown(text));
    return result;
  }
  const page = parsePage(text, res.url);
  const meta = pageMeta(page, res.headers.get('content-language'));
  Object.assign(result, meta);
  if (mode === 'css') {
    result.fields = extractFields(page, schema!);
    return result;
  }
  const main = mainContent(text, page.base);
  result.title = main.title ?? meta.title;
  result.byline = main.byline ?? meta.byline;
  result.published_at = meta.published_at ?? main.published_at;
  result.language = meta.language ?? main.language;
  if (mode === 'llm') result.fields = await extractWithModel(deps, { text: main.markdown, intent: req.intent, schema, base: page.base });
  else Object.assign(result, { markdown: main.markdown, truncated: main.truncated });
  return result;
}
