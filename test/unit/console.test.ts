// What `npm start` prints: a start-up message for a person at a terminal, JSON lines otherwise.
// (The real process, in a pipe and in a pseudo-terminal: test/e2e/server-console.test.ts.)
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { consoleModeOf, describeDatabase, logDestination, startupMessage } from '../../server/console.js';

describe('console', () => {
  it('is human on a terminal and JSON on a file or a pipe', () => {
    expect(consoleModeOf({ isTTY: true })).toBe('human');
    expect(consoleModeOf({ isTTY: false })).toBe('json');
    expect(consoleModeOf({})).toBe('json'); // a file or a pipe has no isTTY at all
  });

  it('says where the server listens, where the docs and the token file are, and which database', () => {
    const text = startupMessage({
      url: 'http://127.0.0.1:8787',
      tokenFile: '/srv/cp/data/agent-token',
      tokenCreated: true,
      dataDir: '/srv/cp/data',
      databaseUrl: null,
      oauthRedirectUri: 'https://pipeline.example.com/oauth/callback',
    });
    expect(text).toContain('Content Pipeline is listening on http://127.0.0.1:8787');
    expect(text).toMatch(/Sign-in URL +https:\/\/pipeline\.example\.com\/oauth\/callback \(the redirect URL/);
    expect(text).toMatch(/API docs +http:\/\/127\.0\.0\.1:8787\/docs\n/);
    expect(text).toMatch(/Agent token +\/srv\/cp\/data\/agent-token \(new\); `npx cpa token` prints it/);
    expect(text).toMatch(/Database +SQLite, \/srv\/cp\/data\/content-pipeline\.db/);
    expect(text).not.toContain('{');
  });

  it('names a team host’s database without its password, and says how to get a first token', () => {
    const text = startupMessage({
      url: 'http://10.0.0.5:8787',
      tokenFile: null,
      tokenCreated: false,
      dataDir: '/x',
      databaseUrl: 'postgresql://cpa:s3cret@db.internal:5432/cpa',
    });
    expect(text).toMatch(/Database +PostgreSQL, cpa@db\.internal:5432\/cpa/);
    expect(text).not.toContain('s3cret');
    expect(text).toContain('npx cpa admin workspace create --name NAME');
    expect(describeDatabase({ dataDir: '/x', databaseUrl: 'postgresql:///cpa?host=/var/run/postgresql' })).toBe('PostgreSQL, local socket/cpa');
  });

  it('writes JSON lines by default and readable lines through the human destination', () => {
    expect(logDestination('json')).toBeUndefined();
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const prev = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
    try {
      pino({ level: 'info' }, logDestination('human', out)).info({ url: 'http://127.0.0.1:1' }, 'Content Pipeline is listening');
    } finally {
      if (prev === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = prev;
    }
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Content Pipeline is listening \{"url":"http:\/\/127\.0\.0\.1:1"\}\n$/);
  });
});
