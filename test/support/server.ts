// Starts the real server (real database, real HTTP on a free port) for a test file.
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../../server/config.js';
import { start, type Running } from '../../server/main.js';
import { createWorkspace } from '../../server/services/tokens.js';
import { createApiClient, type ApiClient, type ClientOptions } from '../../clients/typescript/src/index.js';
import { createTestDatabase, type TestDatabase, type TestDbKind } from './database.js';

export interface TestServer {
  running: Running;
  url: string;
  token: string;
  db: TestDatabase;
  config: Config;
  client(token?: string, opts?: Partial<ClientOptions>): ApiClient;
  /** Creates another workspace and returns its token. */
  newWorkspace(name?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestServer(opts: { env?: Record<string, string>; db?: TestDatabase; kind?: TestDbKind } = {}): Promise<TestServer> {
  const db = opts.db ?? (await createTestDatabase(opts.kind));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: db.dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...opts.env,
  });
  const running = await start(config);
  const token = config.instanceMode === 'desktop' ? readFileSync(`${db.dataDir}/agent-token`, 'utf8').trim() : '';
  return {
    running,
    url: running.url,
    token,
    db,
    config,
    // No retries unless a test asks: a test checks what the server answered, not what a retry got.
    client: (t = token, o = {}) => createApiClient({ baseUrl: running.url, token: t, maxRetries: 0, sleep: async () => {}, ...o }),
    newWorkspace: async (name = 'Other') => (await createWorkspace(running.deps, name)).token,
    stop: async () => {
      await running.stop();
      if (!opts.db) await db.drop();
    },
  };
}
