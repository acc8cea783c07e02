// Reading an HTML page: metadata and links with cheerio, the main content with Mozilla
// Readability over a linkedom DOM, and HTML→Markdown with Turndown. Neither DOM runs scripts:
// linkedom and cheerio only parse, so a page's JavaScript is text and is dropped.
import { Readability } from '@mozilla/readability';
import * as cheerio from 'cheerio';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { absoluteUrl, clip, collapse } from './values.js';

export const MAX_MARKDOWN = 2_000_000;
const MAX_LINKS = 1_000;

export interface PageMeta {
  title: string | null;
  byline: string | null;
  published_at: string | null;
  canonical_url: string | null;
  language: string | null;
  links: { href: string; text: string }[];
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

/** ISO 8601 UTC when the text parses as a date, else null. */
export function isoDate(text: string | null | undefined): string | null {
  if (!text) return null;
  const t = Date.parse(text.trim());
  return Number.isNaN(t) ? null : new Date(t).toISOString();
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
    byline: clip(firstOf($, [['meta[name="author"]', 'content'], ['[rel="author"]', null], ['[itemprop="author"]', null]]) ?? '', 2000) || null,
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
