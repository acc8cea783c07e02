// One real server per test file, with the workspace id of its desktop token:
//   const t = serverSuite(() => fake.outboundEnv);   // env is read when the server starts
//   it('…', () => t.s.client().GET(…));
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import { workspaceOf } from './seed.js';

export interface Suite {
  s: TestServer;
  /** The workspace of `s.token`. */
  ws: string;
}

export function serverSuite(env: () => Record<string, string> = () => ({})): Suite {
  const suite = {} as Suite;
  beforeAll(async () => {
    suite.s = await startTestServer({ env: env() });
    suite.ws = await workspaceOf(suite.s.running.deps, suite.s.token);
  });
  afterAll(async () => {
    await suite.s?.stop();
  });
  return suite;
}
