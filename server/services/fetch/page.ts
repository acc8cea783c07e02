// Reading an HTML page: metadata and links with cheerio, the main content with Mozilla
// Readability over a linkedom DOM, and HTML→Markdown with Turndown. Neither DOM runs scripts:
// linkedom and cheerio only parse, so a page's JavaScript is text and is dropped.
import { Readability } from '@mozilla/readability';
import * as cheerio from 'cheerio';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { instantText } from '../../lib/instants.js';
import { absoluteUrl, clip, collapse } from './values.js';

export const MAX_MARKDOWN = 2_000_000;
const MAX_LINKS = 1_000;
const MAX_IMAGES = 200;

export interface PageMeta {
  title: string | null;
  byline: string | null;
  published_at: string | null;
  canonical_url: string | null;
  language: string | null;
  links: { href: string; text: string }[];
  images: PageImage[];
}

export interface PageImage {
  src: string;
  /** The `alt` attribute: `null` when absent, `""` when the page marks the image decorative. */
  alt: string | null;
  width: number | null;
  height: number | null;
}

export interface ParsedPage {
  $: cheerio.CheerioAPI;
  /** Where relative URLs resolve: `<base href>` when the page has one, else the final URL. */
  base: string;
}

export function parsePage(html: string, finalUrl: string): ParsedPage {
  const $ = cheerio.load(html);
  const baseHref = $('base[href]').first().attr('href');
  const base = (baseHref && absoluteUrl(baseHref, finalUrl)) || finalUrl;
  return { $, base };
}

const nonEmpty = (s: string | undefined | null): string | null => {
  const v = s ? collapse(s) : '';
  return v ? v : null;
};

function firstOf($: cheerio.CheerioAPI, candidates: Array<[string, string | null]>): string | null {
  for (const [selector, attribute] of candidates) {
    const el = $(selector).first();
    if (!el.length) continue;
    const v = nonEmpty(attribute ? el.attr(attribute) : el.text());
    if (v) return v;
  }
  return null;
}

/** ISO 8601 UTC when the text parses as a date of the years 0001–9999, else null. */
export function isoDate(text: string | null | undefined): string | null {
  if (!text) return null;
  return instantText(new Date(text.trim()));
}

const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
export function languageTag(raw: string | null | undefined): string | null {
  const v = raw?.split(',')[0]?.trim() ?? '';
  return v.length <= 35 && LANGUAGE_TAG.test(v) ? v : null;
}

function links($: cheerio.CheerioAPI, base: string): PageMeta['links'] {
  const seen = new Set<string>();
  const out: PageMeta['links'] = [];
  $('a[href]').each((_, a) => {
    if (out.length >= MAX_LINKS) return false;
    const href = absoluteUrl($(a).attr('href') ?? '', base);
    if (!href || href.length > 4096 || seen.has(href)) return;
    seen.add(href);
    out.push({ href, text: clip(collapse($(a).text()), 2000) });
  });
  return out;
}

const dimension = (v: string | undefined): number | null => (v && /^\d{1,5}$/.test(v.trim()) && Number(v) > 0 ? Number(v) : null);

/**
 * The page's images with their alt text, in document order, each address once: the Open Graph
 * image (`og:image`, alt from `og:image:alt`) first, then every `<img>` (its `src`, else the first
 * candidate of `srcset`) with an http(s) target; `data:` images are left out. An image named twice
 * keeps its first place and takes the alt text and size of a later mention when the first had none. At most 200.
 */
function images($: cheerio.CheerioAPI, base: string): PageImage[] {
  const seen = new Map<string, PageImage>();
  const out: PageImage[] = [];
  const add = (raw: string | undefined, rawAlt: string | null | undefined, width: string | undefined, height: string | undefined) => {
    const src = raw ? absoluteUrl(raw.trim(), base) : null;
    if (!src || src.length > 4096) return;
    const alt = rawAlt === undefined || rawAlt === null ? null : clip(collapse(rawAlt), 5000);
    const known = seen.get(src);
    // The same image again (the og:image is usually also in the page): keep the first place, fill what it lacked.
    if (known) {
      known.alt ??= alt;
      known.width ??= dimension(width);
      known.height ??= dimension(height);
      return;
    }
    if (out.length >= MAX_IMAGES) return;
    const image = { src, alt, width: dimension(width), height: dimension(height) };
    seen.set(src, image);
    out.push(image);
  };
  const og = $('meta[property="og:image"][content], meta[property="og:image:url"][content]').first();
  if (og.length) {
    add(
      og.attr('content'),
      $('meta[property="og:image:alt"]').first().attr('content') ?? null,
      $('meta[property="og:image:width"]').attr('content'),
      $('meta[property="og:image:height"]').attr('content'),
    );
  }
  $('img').each((_, img) => {
    const el = $(img);
    add(el.attr('src') || el.attr('srcset')?.split(',')[0]?.trim().split(/\s+/)[0], el.attr('alt'), el.attr('width'), el.attr('height'));
  });
  return out;
}

/** Metadata every mode reports for HTML (Readability's, when it ran, take precedence for the text fields). */
export function pageMeta(page: ParsedPage, contentLanguage: string | null): PageMeta {
  const { $, base } = page;
  const canonical = $('link[rel~="canonical"][href]').first().attr('href');
  const canonicalUrl = canonical ? absoluteUrl(canonical, base) : null;
  const title = firstOf($, [
    ['meta[property="og:title"]', 'content'],
    ['title', null],
    ['h1', null],
  ]);
  return {
    title: title && clip(title, 2000),
    byline:
      clip(
        firstOf($, [
          ['meta[name="author"]', 'content'],
          ['[rel="author"]', null],
          ['[itemprop="author"]', null],
        ]) ?? '',
        2000,
      ) || null,
    published_at: isoDate(
      firstOf($, [
        ['meta[property="article:published_time"]', 'content'],
        ['meta[itemprop="datePublished"]', 'content'],
        ['[itemprop="datePublished"][datetime]', 'datetime'],
        ['time[datetime]', 'datetime'],
        ['meta[name="date"]', 'content'],
      ]),
    ),
    canonical_url: canonicalUrl && canonicalUrl.length <= 2048 ? canonicalUrl : null,
    language: languageTag($('html').attr('lang')) ?? languageTag($('meta[http-equiv="content-language" i]').attr('content')) ?? languageTag(contentLanguage),
    links: links($, base),
    images: images($, base),
  };
}

export interface MainContent {
  title: string | null;
  byline: string | null;
  published_at: string | null;
  language: string | null;
  markdown: string;
  truncated: boolean;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'form']);

/** Makes link and image targets absolute before Readability moves things around. */
function absolutize(document: Document, base: string): void {
  for (const [selector, attr] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of Array.from(document.querySelectorAll(selector))) {
      const abs = absoluteUrl(el.getAttribute(attr) ?? '', base);
      if (abs) el.setAttribute(attr, abs);
      else if (attr === 'href') el.removeAttribute(attr); // javascript: and the like
    }
  }
}

export function clipMarkdown(text: string): { markdown: string; truncated: boolean } {
  return text.length > MAX_MARKDOWN ? { markdown: text.slice(0, MAX_MARKDOWN), truncated: true } : { markdown: text, truncated: false };
}

/** The main content as Markdown (Readability; the whole body when it finds no article). */
export function mainContent(html: string, base: string): MainContent {
  const { document } = parseHTML(html);
  absolutize(document as unknown as Document, base);
  const article = new Readability(document as unknown as Document).parse();
  let body: string;
  if (article?.content) {
    body = article.content;
  } else {
    for (const el of Array.from(document.querySelectorAll('script, style, noscript, template'))) el.remove();
    body = document.body?.innerHTML ?? '';
  }
  let md = turndown.turndown(body).trim();
  const title = nonEmpty(article?.title);
  if (title && !/^#\s/.test(md)) md = `# ${title}\n\n${md}`;
  return {
    title: title && clip(title, 2000),
    byline: nonEmpty(article?.byline) && clip(collapse(article!.byline!), 2000),
    published_at: isoDate(article?.publishedTime),
    language: languageTag(article?.lang),
    ...clipMarkdown(md),
  };
}
