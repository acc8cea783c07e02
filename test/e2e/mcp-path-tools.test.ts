// `cpa mcp`'s tools that upload a file from a path on the agent's machine (import_archive_from_path,
// upload_media_from_path), given what an agent may be handed: a directory, a device that never
// ends (/dev/zero, /dev/urandom), a FIFO nobody writes to, a file past the service's limit, a path
// that is not a string, a file whose content the server refuses. Each is answered at once (a hang
// fails the test by its timeout) as validation_failed naming the argument, and no answer quotes
// the file's content.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serverSuite } from '../support/suite.js';
import { cpaBin, cpaEnv, projectRoot } from './support.js';

vi.setConfig({ testTimeout: 20_000, hookTimeout: 60_000 });

const t = serverSuite();
const dir = mkdtempSync(path.join(os.tmpdir(), 'cpa-mcp-paths-'));
let client: Client;

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cpaBin, 'mcp'],
    env: cpaEnv({ CPA_BASE_URL: t.s.url, CPA_TOKEN: t.s.token }) as Record<string, string>,
    cwd: projectRoot,
    stderr: 'pipe',
  });
  client = new Client({ name: 'path-tools-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, text: r.content[0]!.text, body: JSON.parse(r.content[0]!.text) as { error?: { code: string; message: string } } };
}

const fifo = () => {
  const p = path.join(dir, `pipe-${Math.random().toString(36).slice(2)}`);
  execFileSync('mkfifo', [p]);
  return p;
};

describe.each([
  ['import_archive_from_path', { handle: 'paths-test' }],
  ['upload_media_from_path', { alt_text: 'A test' }],
])('%s', (tool, rest) => {
  it.each([
    ['a directory', () => dir, /is a directory; only a regular file can be uploaded/],
    ['/dev/zero', () => '/dev/zero', /is a device; only a regular file/],
    ['/dev/urandom', () => '/dev/urandom', /is a device; only a regular file/],
    ['a FIFO nobody writes to', fifo, /is a FIFO \(named pipe\); only a regular file/],
    ['a missing file', () => path.join(dir, 'missing-🧑‍💻.zip'), /cannot be read: no such file/],
  ])('refuses %s at once: validation_failed naming path', async (_what, make, message) => {
    const r = await call(tool, { path: make(), ...rest });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/^path /) });
    expect(r.body.error!.message).toMatch(message);
  });

  it.each([
    ['a number', 42, /^path must be a string, got number/],
    ['an object', { file: '/etc/hosts' }, /^path must be a string, got object/],
    ['an array', ['/etc/hosts'], /^path must be a string, got an array/],
  ])('refuses a path that is %s: validation_failed naming path', async (_what, value, message) => {
    const r = await call(tool, { path: value, ...rest });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(message) });
  });
});

it('refuses a file past the service’s limit before sending a byte (a sparse 33 MiB image; MEDIA_MAX_BYTES is 32 MiB)', async () => {
  const big = path.join(dir, 'huge.png');
  writeFileSync(big, '');
  truncateSync(big, 33 * 1024 * 1024);
  const r = await call('upload_media_from_path', { path: big });
  expect(r.body.error).toMatchObject({
    code: 'validation_failed',
    message: expect.stringMatching(/^path .* is 34603008 bytes; the service takes at most 33554432/),
  });
});

it('another argument of the wrong type is named too (handle, format, include_non_public)', async () => {
  const outbox = path.join(projectRoot, 'test/fixtures/archives/mastodon-outbox.json');
  expect((await call('import_archive_from_path', { path: outbox, handle: 7 })).body.error?.message).toMatch(/^handle must be a string, got number/);
  expect((await call('import_archive_from_path', { path: outbox, handle: 'x', format: 'myspace' })).body.error?.message).toMatch(
    /^format must be one of x, mastodon, linkedin/,
  );
  expect((await call('import_archive_from_path', { path: outbox, handle: 'x', include_non_public: 'yes' })).body.error?.message).toMatch(
    /^include_non_public must be a boolean, got string/,
  );
  expect((await call('import_archive_from_path', { path: outbox })).body.error?.message).toMatch(/^handle is required/);
});

it('never quotes the content of the file it read, whatever the server thought of it', async () => {
  const secret = 'the door code is 4417-SECRET';
  const files = {
    'diary.json': `{"orderedItems": [ {"content": ${secret}`,
    'tweets.js': `window.YTD.tweets.part0 = [ { "tweet" : ${secret}`,
    'Shares.csv': `Date,ShareCommentary\n"${secret}`,
    'photo.png': `\x89PNG\r\n\x1a\n${secret}`,
    // What the JSON parser quotes when it chokes: a whole string value, a number, a character.
    'outbox.json': `{"orderedItems" "${secret}"}`,
    'outbox-number.json': '{"orderedItems": [ 4417 4417 ]}',
    'outbox-char.json': '{"orderedItems": [ {"type": "Create"} 4 ]}',
    'tweets-value.js': `window.YTD.tweets.part0 = [ {"tweet": {"full_text": "x"} "${secret}" } ]`,
  };
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(dir, name);
    writeFileSync(p, content);
    const tool = name === 'photo.png' ? 'upload_media_from_path' : 'import_archive_from_path';
    const r = await call(tool, { path: p, ...(tool === 'import_archive_from_path' ? { handle: 'secret-test' } : {}) });
    expect(r.isError, r.text).toBe(true);
    expect(r.body.error?.code).toBe('validation_failed');
    expect(r.text, name).not.toContain('4417');
    expect(r.text, name).not.toContain('door code');
    expect(r.text, name).not.toContain('SECRET');
  }
});
