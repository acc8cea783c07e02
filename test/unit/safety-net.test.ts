// The process-level safety net (server/lib/safety-net.ts), in a process of its own: an 'error'
// event nobody listens to, a throw in a timer and a rejected promise nobody awaited, each started
// by a "request" (inside requestContext), are logged with that request's id, and the process goes
// on; without the net, the first of them ends it (the control).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

const script = (withNet: boolean) => `
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { installSafetyNet, requestContext } from './server/lib/safety-net.ts';
const logger = pino({ base: null, timestamp: false });
if (${withNet}) installSafetyNet(logger);
requestContext.run({ reqId: 'req_faulty' }, () => {
  const sink = new Writable({ write: (_c, _e, cb) => cb(new Error('the disk said no')) });
  sink.write('x');
  setTimeout(() => { throw new Error('a bug in a callback'); }, 5);
  void Promise.reject(new Error('nobody awaited this'));
});
requestContext.run({ reqId: 'req_other' }, () => setTimeout(() => console.log(JSON.stringify({ msg: 'req_other answered' })), 100));
`;

const run = (withNet: boolean) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(withNet)], { cwd: root, encoding: 'utf8', timeout: 30_000 });

describe('the safety net', () => {
  it('logs each unhandled error with the id of the request it came from, and the process keeps serving', () => {
    const r = run(true);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; reqId?: string; err?: { message: string }; origin?: string });
    const errors = lines.filter((l) => l.reqId === 'req_faulty');
    expect(errors.map((l) => l.err?.message).sort()).toEqual(['a bug in a callback', 'nobody awaited this', 'the disk said no']);
    expect(errors.every((l) => /keeps running/.test(l.msg))).toBe(true);
    expect(lines.some((l) => l.msg === 'req_other answered')).toBe(true);
  });

  it('without it, the first unhandled error ends the process (what issue 22 saw)', () => {
    const r = run(false);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('req_other answered');
  });
});
