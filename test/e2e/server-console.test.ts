// `npm start`'s process (server/main.ts) as a person and as a log collector see it: in a
// pseudo-terminal (util-linux `script`) a start-up message naming the docs, the token file and the
// database; into a pipe, JSON lines only.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { cpaEnv, projectRoot } from './support.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

/** Starts the server as `npm start` does, until `ready` shows in its output; then stops it (SIGTERM). */
async function runUntil(command: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  // Its own process group, so that `script` and the server under it stop together.
  const child = spawn(command[0]!, command.slice(1), { cwd: projectRoot, env: cpaEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`${why} before ${ready}\n--- stdout:\n${out}\n--- stderr:\n${err}`));
      const timer = setTimeout(() => fail('no match in 150 s'), 150_000);
      child.stdout.on('data', () => ready.test(out) && (clearTimeout(timer), resolve()));
      child.on('close', (code) => (clearTimeout(timer), fail(`exited (${code})`)));
    });
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
  return out;
}

const server = [process.execPath, '--import', 'tsx', 'server/main.ts'];
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

// The database plays no part: run once, in the SQLite pass.
describe.skipIf(process.env.TEST_DATABASE === 'postgresql')('the console of npm start', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await db?.drop();
  });
  const env = () => ({ DATA_DIR: db.dataDir, PORT: '0', NO_COLOR: '1', LOG_LEVEL: 'info' });

  it('into a pipe: JSON lines only, the address and the token file among them', async () => {
    const out = await runUntil(server, env(), /Content Pipeline is listening/);
    const lines = out.split('\n').filter((l) => l.trim());
    const records = lines.map((l) => JSON.parse(l) as { msg: string; url?: string; tokenFile?: string });
    expect(records.find((r) => r.msg === 'Content Pipeline is listening')?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(records.some((r) => r.tokenFile === `${db.dataDir}/agent-token`)).toBe(true);
    expect(out).not.toContain('API docs');
    // The desk's one-time sign-in link goes to a terminal only, never into the logs.
    expect(out).not.toContain('#/sign-in/');
  });

  it('on a terminal: a start-up message with the docs, the token file and the database, and no JSON', async () => {
    const out = await runUntil(['script', '-qfec', server.map(quote).join(' '), '/dev/null'], env(), /Stop with Ctrl\+C/);
    const text = out.replaceAll('\r', '');
    const url = /Content Pipeline is listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(text)?.[1];
    expect(url, text).toBeDefined();
    expect(text).toContain(`API docs     ${url}/docs\n`);
    expect(text).toContain(`Review desk  ${url}/\n`);
    expect(text).toMatch(new RegExp(`Sign in      ${url!.replaceAll('.', '\\.')}/#/sign-in/[A-Za-z0-9_-]{22}\n`));
    expect(text).toContain(`Agent token  ${db.dataDir}/agent-token`);
    expect(text).toContain(`Database     SQLite, ${db.dataDir}/content-pipeline.db`);
    expect(text).not.toMatch(/^\{"level"/m);
  });
});
