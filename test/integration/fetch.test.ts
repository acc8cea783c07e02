// POST /fetch and the extraction schemas, through the typed client against a real server, with
// saved pages (test/fixtures/pages) served by a local HTTPS fake that only the test allow-list
// lets the server reach. No language-model provider is configured here (see fetch-llm.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentPipelineError, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { caught } from '../support/caught.js';
import { encodeLegacy } from '../support/feeds.js';
import { reply, startFake, type Fake } from '../support/https-fake.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { uniqueKey, V1 } from '../support/api.js';

const pagesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/pages');
const page = (name: string) => readFileSync(path.join(pagesDir, name));

let s: TestServer;
let site: Fake;

const HTML = 'text/html; charset=utf-8';
const redirect = (status: number, location: string) => reply(status, '', null, { location });
const SITE = {
  '/posts/shipping-v2-3': reply(200, page('article.html'), HTML),
  '/grinders/eg-42': reply(200, page('product.html'), HTML),
  '/recipes/tomato-soup': reply(200, page('recipe.html'), HTML),
  '/changelog': reply(200, page('changelog.html'), HTML),
  '/cafe': reply(200, page('cafe-cp1252.html'), 'text/html'),
  '/sjis': reply(
    200,
    encodeLegacy(
      'shift_jis',
      '<!doctype html><html lang="ja"><head><!-- <meta charset="utf-8"> --><meta charset="Shift_JIS"><title>日本語のブログ</title></head><body><article><h1>日本語のブログ</h1><p>こんにちは、新しいバージョンを公開しました。速度は四倍です。</p></article></body></html>',
    ),
    'text/html',
  ),
  '/gb': reply(
    200,
    encodeLegacy(
      'gbk',
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>你好，世界</title></head><body><article><h1>你好，世界</h1><p>中文博客：今天发布了新版本，速度提高了四倍。</p></article></body></html>',
    ),
    'text/html',
  ),
  '/latin1-http': reply(
    200,
    encodeLegacy('windows-1252', '<html><head><meta charset="utf-8"><title>Ação</title></head><body><p>Pão de queijo à noite.</p></body></html>'),
    'text/html; charset=ISO-8859-1',
  ),
  '/notes.txt': reply(200, page('notes.txt')),
  '/untyped': reply(200, page('recipe.html'), null),
  '/report.pdf': reply(200, '%PDF-1.7\n%fake\n', 'application/pdf'),
  '/data.json': reply(200, '{"a":1}', 'application/json'),
  '/missing': reply(404, '<h1>Not found</h1>', 'text/html'),
  '/broken': reply(500, '<h1>Oops</h1>', 'text/html'),
  '/moved': redirect(301, '/posts/shipping-v2-3'),
  '/loop': redirect(302, '/loop'),
  '/to-metadata': redirect(302, 'https://169.254.169.254/latest/meta-data/'),
  '/to-loopback-name': redirect(307, 'https://localhost/admin'),
  '/huge': reply(200, Buffer.alloc(6 * 1024 * 1024, 0x61), 'text/html'),
};

beforeAll(async () => {
  site = await startFake({ routes: SITE, handler: reply(404, 'no such page') });
  s = await startTestServer({ env: site.outboundEnv });
});
afterAll(async () => {
  await s?.stop();
  await site?.close();
});

const fetchPage = (body: Schemas['FetchRequest'], token = s.token) => unwrap(s.client(token).POST(`${V1}/fetch`, { body }));

describe('markdown mode', () => {
  it('extracts the main content of an article as Markdown, with its metadata, and runs no script', async () => {
    const r = await fetchPage({ url: `${site.url}/posts/shipping-v2-3`, mode: 'markdown' });
    expect(r).toMatchObject({
      url: `${site.url}/posts/shipping-v2-3`,
      final_url: `${site.url}/posts/shipping-v2-3`,
      status: 200,
      content_type: 'text/html; charset=utf-8',
      mode: 'markdown',
      title: 'Shipping v2.3: a faster importer',
      byline: 'Ada Lovelace',
      published_at: '2026-11-21T15:00:00.000Z',
      canonical_url: `${site.url}/posts/shipping-v2-3`,
      language: 'en-GB',
      truncated: false,
      fields: null,
    });
    const md = r.markdown ?? '';
    expect(md.startsWith('# Shipping v2.3: a faster importer\n')).toBe(true);
    expect(md).toContain('## What we measured');
    expect(md).toContain('**four times faster**');
    expect(md).toMatch(/```\nfor await \(const batch of chunks\(records, 500\)\) \{/);
    expect(md).toContain(`[import format reference](${site.url}/docs/import-format.html)`); // ../ resolved
    expect(md).toContain(`![Import time by archive size, v2.2 against v2.3](${site.url}/images/importer-chart.png)`);
    for (const noise of ['HACKED', 'INJECTED', 'WRITTEN BY SCRIPT', 'dataLayer', 'Subscribe now', 'Privacy']) expect(md).not.toContain(noise);
    // The og:image and the <img> are one image; its alt text comes from the <img>.
    expect(r.images).toEqual([
      { src: `${site.url}/images/importer-chart.png`, alt: 'Import time by archive size, v2.2 against v2.3', width: null, height: null },
    ]);
    expect(r.links).toContainEqual({ href: `${site.url}/archive`, text: 'Archive' });
    expect(r.links).toContainEqual({ href: 'https://social.example/@fieldnotes', text: 'Mastodon' });
    expect(r.links.some((l) => !/^https?:/.test(l.href))).toBe(false); // javascript: and mailto: dropped
    expect(new Set(r.links.map((l) => l.href)).size).toBe(r.links.length);
    expect(Date.parse(r.fetched_at)).not.toBeNaN();
  });

  it('auto without schema_id or intent runs markdown; the page is fetched with the service User-Agent', async () => {
    const before = site.requests.length;
    const r = await fetchPage({ url: `${site.url}/recipes/tomato-soup` });
    expect(r.mode).toBe('markdown');
    expect(r.markdown).toContain('800 g canned tomatoes');
    expect(site.requests[before].headers['user-agent']).toBe(s.config.outbound.userAgent);
  });

  it('follows a redirect and reports the final URL', async () => {
    const r = await fetchPage({ url: `${site.url}/moved`, mode: 'markdown' });
    expect(r.url).toBe(`${site.url}/moved`);
    expect(r.final_url).toBe(`${site.url}/posts/shipping-v2-3`);
    expect(r.title).toBe('Shipping v2.3: a faster importer');
  });

  it('decodes a page by its <meta charset> when the header names none', async () => {
    const r = await fetchPage({ url: `${site.url}/cafe` });
    expect(r.title).toBe('Café crème');
    expect(r.language).toBe('fr');
    expect(r.markdown).toContain('servi à la française, coûte deux euros');
  });

  it('decodes pages by the WHATWG rules: <meta charset> (comments skipped), <meta http-equiv>, and the HTTP charset over a wrong meta', async () => {
    expect(await fetchPage({ url: `${site.url}/sjis` })).toMatchObject({
      title: '日本語のブログ',
      markdown: expect.stringContaining('こんにちは、新しいバージョンを公開しました。'),
    });
    expect(await fetchPage({ url: `${site.url}/gb` })).toMatchObject({ title: '你好，世界', markdown: expect.stringContaining('中文博客：今天发布了新版本') });
    expect(await fetchPage({ url: `${site.url}/latin1-http` })).toMatchObject({ title: 'Ação', markdown: expect.stringContaining('Pão de queijo à noite.') });
  });

  it('passes plain text through and treats an untyped body that starts with < as HTML', async () => {
    const text = await fetchPage({ url: `${site.url}/notes.txt` });
    expect(text).toMatchObject({
      mode: 'markdown',
      content_type: 'text/plain; charset=utf-8',
      title: null,
      markdown: page('notes.txt').toString('utf8'),
      links: [],
    });
    const untyped = await fetchPage({ url: `${site.url}/untyped` });
    expect(untyped.content_type).toBe('text/html');
    expect(untyped.title).toBe('Weeknight Tomato Soup');
  });
});

describe('idempotency_key (optional on fetch)', () => {
  const hits = (p: string) => site.requests.filter((r) => r.url === p).length;

  it('replays the first answer for the same key and body without fetching again; another body with that key is 422', async () => {
    const url = `${site.url}/changelog`;
    const before = hits('/changelog');
    const body = { url, mode: 'markdown' as const, idempotency_key: uniqueKey('fetch') };
    const first = await s.client().POST(`${V1}/fetch`, { body });
    const again = await s.client().POST(`${V1}/fetch`, { body });
    expect(first.response.status).toBe(200);
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(hits('/changelog') - before).toBe(1);
    const other = await caught(fetchPage({ ...body, url: `${site.url}/recipes/tomato-soup` }), ContentPipelineError);
    expect(other).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(other.message).toContain('idempotency_key');
  });

  it('without a key, every request fetches the page', async () => {
    const before = hits('/grinders/eg-42');
    await fetchPage({ url: `${site.url}/grinders/eg-42`, mode: 'markdown' });
    const second = await s.client().POST(`${V1}/fetch`, { body: { url: `${site.url}/grinders/eg-42`, mode: 'markdown' } });
    expect(second.response.headers.get('idempotent-replayed')).toBeNull();
    expect(hits('/grinders/eg-42') - before).toBe(2);
  });
});

describe('css mode and the built-in schemas', () => {
  it('product: typed fields from microdata (number price, absolute image URL)', async () => {
    const r = await fetchPage({ url: `${site.url}/grinders/eg-42`, schema_id: 'product' });
    expect(r.mode).toBe('css');
    expect(r.markdown).toBeNull();
    expect(r.fields).toEqual({
      name: 'Conical Burr Espresso Grinder EG-42',
      price: 249,
      currency: 'EUR',
      availability: 'https://schema.org/InStock',
      sku: 'EG-42-BLK',
      brand: 'Kaffeewerk',
      image: `${site.url}/media/eg-42/front.jpg`,
      description: 'A quiet conical burr grinder with 40 grind settings, from Turkish to French press.',
    });
    expect(r.canonical_url).toBe('https://shop.example.com/grinders/eg-42');
  });

  it('recipe: lists of ingredients and steps, and ISO durations', async () => {
    const r = await fetchPage({ url: `${site.url}/recipes/tomato-soup`, mode: 'css', schema_id: 'recipe' });
    expect(r.fields).toMatchObject({
      name: 'Weeknight Tomato Soup',
      yield: '4 bowls',
      prep_time: 'PT10M',
      cook_time: 'PT20M',
      total_time: 'PT30M',
      image: 'https://img.example.org/tomato-soup.jpg',
    });
    expect(r.fields?.ingredients).toEqual([
      '2 tablespoons olive oil',
      '1 onion, chopped',
      '2 cloves garlic, sliced',
      '800 g canned tomatoes',
      '500 ml vegetable stock',
      'Salt and pepper',
    ]);
    expect(r.fields?.steps).toHaveLength(4);
  });

  it('article: fallbacks in order, tags and headings as lists', async () => {
    const r = await fetchPage({ url: `${site.url}/posts/shipping-v2-3`, schema_id: 'article' });
    expect(r.fields).toMatchObject({
      title: 'Shipping v2.3: a faster importer',
      author: 'Ada Lovelace',
      published_at: '2026-11-21T16:00:00+01:00',
      image: `${site.url}/images/importer-chart.png`,
      tags: ['performance', 'release'],
      headings: ['What we measured', 'What we changed', 'What we did not change'],
    });
  });

  it('refuses css on plain text, css without schema_id, and an unknown schema_id without fetching', async () => {
    const onText = await caught(fetchPage({ url: `${site.url}/notes.txt`, mode: 'css', schema_id: 'article' }), ContentPipelineError);
    expect([onText.status, onText.code]).toEqual([422, 'validation_failed']);
    expect(onText.message).toMatch(/^body\.url /);
    const noSchema = await caught(fetchPage({ url: `${site.url}/grinders/eg-42`, mode: 'css' }), ContentPipelineError);
    expect([noSchema.status, noSchema.message]).toEqual([422, 'body.schema_id is required when mode is css']);
    const before = site.requests.length;
    const unknown = await caught(fetchPage({ url: `${site.url}/grinders/eg-42`, schema_id: 'no-such-schema' }), ContentPipelineError);
    expect([unknown.status, unknown.code, unknown.suggestedAction]).toEqual([422, 'validation_failed', 'list_fetch_schemas']);
    expect(unknown.message).toMatch(/^body\.schema_id /);
    expect(site.requests.length).toBe(before);
  });
});

describe('user extraction schemas', () => {
  const changelog: Schemas['FetchSchemaDefinition'] = {
    description: 'Release notes pages',
    fields: {
      version: { selectors: [{ selector: 'h1 .version' }] },
      released: { selectors: [{ selector: '.date time', attribute: 'datetime' }] },
      changes: { type: 'list', selectors: [{ selector: '.missing li' }, { selector: 'ul.changes li' }] },
      downloads: { type: 'url_list', selectors: [{ selector: 'a.download' }] },
      size_mb: { type: 'number', selectors: [{ selector: '.size' }] },
      absent: { selectors: [{ selector: '.nothing-here' }] },
    },
  };
  const put = (id: string, body: Schemas['FetchSchemaDefinition'], token = s.token) =>
    unwrap(s.client(token).PUT(`${V1}/fetch/schemas/{id}`, { params: { path: { id } }, body }));
  const del = (id: string, token = s.token) => unwrap(s.client(token).DELETE(`${V1}/fetch/schemas/{id}`, { params: { path: { id } } }));
  const list = (token = s.token) => unwrap(s.client(token).GET(`${V1}/fetch/schemas`));

  it('lists the read-only built-ins', async () => {
    const l = await list();
    expect(l.next_cursor).toBeNull();
    expect(l.data.slice(0, 3).map((x) => [x.id, x.builtin, x.created_at])).toEqual([
      ['article', true, null],
      ['product', true, null],
      ['recipe', true, null],
    ]);
  });

  it('stores, replaces, uses, lists and deletes a schema of the workspace', async () => {
    const created = await s.client().PUT(`${V1}/fetch/schemas/{id}`, { params: { path: { id: 'changelog' } }, body: changelog });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ id: 'changelog', builtin: false, description: 'Release notes pages', fields: changelog.fields });
    const replaced = await s
      .client()
      .PUT(`${V1}/fetch/schemas/{id}`, { params: { path: { id: 'changelog' } }, body: { ...changelog, description: 'Changelogs' } });
    expect(replaced.response.status).toBe(200);
    expect(replaced.data?.description).toBe('Changelogs');
    expect(replaced.data?.created_at).toBe(created.data?.created_at);
    expect((await list()).data.map((x) => x.id)).toContain('changelog');

    const r = await fetchPage({ url: `${site.url}/changelog`, schema_id: 'changelog' });
    expect(r.fields).toEqual({
      version: '2.3.0',
      released: '2026-11-21',
      changes: ['Importer is four times faster on large archives.', 'Peak memory no longer grows with the archive.', 'Attachments are copied in parallel.'],
      downloads: [`${site.url}/downloads/importer-2.3.0.tar.gz`, `${site.url}/downloads/importer-2.3.0.zip`],
      size_mb: 12.5,
      absent: null,
    });

    expect((await del('changelog')).id).toBe('changelog');
    expect((await caught(del('changelog'), ContentPipelineError)).status).toBe(404);
    expect((await caught(fetchPage({ url: `${site.url}/changelog`, schema_id: 'changelog' }), ContentPipelineError)).status).toBe(422);
  });

  it('keeps schemas per workspace', async () => {
    await put('mine', changelog);
    const other = await s.newWorkspace('Other');
    expect((await list(other)).data.map((x) => x.id)).not.toContain('mine');
    expect((await caught(fetchPage({ url: `${site.url}/changelog`, schema_id: 'mine' }, other), ContentPipelineError)).status).toBe(422);
    expect((await caught(del('mine', other), ContentPipelineError)).status).toBe(404);
  });

  it('refuses to change or delete a built-in, and a bad selector or field name', async () => {
    const change = await caught(put('article', changelog), ContentPipelineError);
    expect([change.status, change.code]).toEqual([403, 'forbidden']);
    expect((await caught(del('product'), ContentPipelineError)).status).toBe(403);
    const bad = await caught(put('bad', { fields: { price: { selectors: [{ selector: '.ok' }, { selector: 'div[' }] } } }), ContentPipelineError);
    expect([bad.status, bad.code]).toEqual([422, 'validation_failed']);
    expect(bad.message).toMatch(/^body\.fields\.price\.selectors\[1\]\.selector is not a valid CSS selector/);
    const badName = await caught(put('bad', { fields: { 'Bad-Name': { selectors: [{ selector: 'h1' }] } } }), ContentPipelineError);
    expect(badName.status).toBe(422);
    expect((await list()).data.map((x) => x.id)).not.toContain('bad');
  });

  it('keeps at most 100 schemas per workspace', async () => {
    const token = await s.newWorkspace('Many schemas');
    const one = { fields: { t: { selectors: [{ selector: 'h1' }] } } };
    for (let i = 0; i < 100; i++) await put(`s${i}`, one, token);
    const over = await caught(put('s100', one, token), ContentPipelineError);
    expect([over.status, over.code, over.suggestedAction]).toEqual([409, 'state_conflict', 'list_fetch_schemas']);
    expect((await s.client(token).PUT(`${V1}/fetch/schemas/{id}`, { params: { path: { id: 's5' } }, body: one })).response.status).toBe(200); // replacing still works
  });
});

describe('refusals and upstream failures', () => {
  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://[::1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://localhost/',
  ])('%s is 422 naming url', async (url) => {
    const before = site.requests.length;
    const err = await caught(fetchPage({ url }), ContentPipelineError);
    expect([err.status, err.code]).toEqual([422, 'validation_failed']);
    expect(err.message).toMatch(/^body\.url is refused: .*not a public address/);
    expect(site.requests.length).toBe(before);
  });

  it('refuses a live local server on a port that is not allow-listed (the server itself, by name)', async () => {
    const err = await caught(fetchPage({ url: `https://localhost:${site.port}/posts/shipping-v2-3` }), ContentPipelineError);
    expect(err.message).toMatch(/^body\.url is refused: localhost \((127\.0\.0\.1|::1)\) is not a public address/);
  });

  it('refuses redirects to private addresses with 422 naming url', async () => {
    for (const p of ['/to-metadata', '/to-loopback-name']) {
      const err = await caught(fetchPage({ url: `${site.url}${p}` }), ContentPipelineError);
      expect([err.status, err.code]).toEqual([422, 'validation_failed']);
      expect(err.message).toMatch(/^body\.url is refused/);
    }
  });

  it('refuses non-https URLs at validation', async () => {
    for (const url of ['http://example.com/', 'file:///etc/passwd', 'ftp://example.com/x']) {
      const err = await caught(fetchPage({ url }), ContentPipelineError);
      expect([err.status, err.code]).toEqual([422, 'validation_failed']);
      expect(err.message).toContain('url');
    }
  });

  it('refuses content types it does not structure with 422 naming url', async () => {
    for (const [p, type] of [
      ['/report.pdf', 'application/pdf'],
      ['/data.json', 'application/json'],
    ]) {
      const err = await caught(fetchPage({ url: `${site.url}${p}` }), ContentPipelineError);
      expect([err.status, err.code]).toEqual([422, 'validation_failed']);
      expect(err.message).toBe(`body.url points to ${type} content; /fetch structures HTML and passes plain text and Markdown through.`);
    }
  });

  it('answers 502 backend_unavailable with the upstream status', async () => {
    for (const [p, status] of [
      ['/missing', 404],
      ['/broken', 500],
    ] as const) {
      const err = await caught(fetchPage({ url: `${site.url}${p}` }), ContentPipelineError);
      expect([err.status, err.code, err.message, err.upstreamStatus]).toEqual([502, 'backend_unavailable', `The page answered HTTP ${status}.`, status]);
    }
  });

  it('answers 502 for an oversize body and a redirect loop', async () => {
    const big = await caught(fetchPage({ url: `${site.url}/huge` }), ContentPipelineError);
    expect([big.status, big.code]).toEqual([502, 'backend_unavailable']);
    expect(big.message).toContain('larger than 5242880 bytes');
    const loop = await caught(fetchPage({ url: `${site.url}/loop` }), ContentPipelineError);
    expect([loop.status, loop.code]).toEqual([502, 'backend_unavailable']);
    expect(loop.message).toContain('more than 5 redirects');
  });

  it('answers 503 with suggested_action configure_writer for llm without a provider; auto with an intent falls back to markdown', async () => {
    const err = await caught(fetchPage({ url: `${site.url}/grinders/eg-42`, mode: 'llm', intent: 'the price' }), ContentPipelineError);
    expect([err.status, err.code, err.suggestedAction]).toEqual([503, 'backend_unavailable', 'configure_writer']);
    const r = await fetchPage({ url: `${site.url}/grinders/eg-42`, intent: 'the price' });
    expect(r.mode).toBe('markdown');
  });
});
