// Starts the server: configuration, database (migrations applied), the desktop token, the HTTP
// application, and a graceful shutdown on SIGTERM/SIGINT.
import type { Server } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildHandlers, type HandlerDeps } from './handlers/index.js';
import { randomIds, systemClock } from './lib/clock.js';
import { Lifecycle } from './lib/lifecycle.js';
import { openDatabase } from './store/database.js';
import { getOrCreateSetting } from './store/settings.js';
import { randomBytes } from 'node:crypto';
import { ensureDesktopToken } from './services/tokens.js';
import { cleanupExpired } from './services/idempotency.js';
import { sweepUnusedMedia } from './services/media.js';
import { desktopSignInLink, sweepExpiredSignInLinks } from './services/desk.js';
import { TokenCache } from './services/token-cache.js';
import type { Authenticated } from './services/context.js';
import { redirectUri } from './services/oauth/redirect.js';
import { sweepAuthorizations } from './services/oauth/authorizations.js';
import { readFileSync } from 'node:fs';
import { createOutboundClient } from './outbound/client.js';
import { createEventHub, startEventServices } from './events/index.js';
import type { EventHub } from './events/hub.js';
import { JobWorker } from './jobs/worker.js';
import { consoleModeOf, logDestination, startupMessage } from './console.js';
import { answerClientErrors } from './http/client-error.js';
import { createMetrics } from './services/metrics.js';
import { startTracing } from './http/tracing.js';
import { installSafetyNet } from './lib/safety-net.js';

export interface Running {
  server: Server;
  url: string;
  deps: HandlerDeps;
  /** The event hub: it wakes the streams (`deps.events`) and serves them (`deps.streams`). */
  hub: EventHub;
  config: Config;
  logger: Logger;
  lifecycle: Lifecycle;
  /** The desktop token file (null on a team host), and whether this start wrote a new token. */
  tokenFile: string | null;
  tokenCreated: boolean;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Where the logs go (default: JSON lines on stdout). */
  logDestination?: DestinationStream;
}

export async function start(config: Config, opts: StartOptions = {}): Promise<Running> {
  const logOptions = {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers["x-content-pipeline-loopback"]', '*.auth_material', '*.token'],
  };
  const logger = opts.logDestination ? pino(logOptions, opts.logDestination) : pino(logOptions);
  const lifecycle = new Lifecycle();
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const hub = createEventHub(database, config, logger);
  // Trusted only while this instance hears of tokens ended on another (PostgreSQL's LISTEN).
  const tokenCache = new TokenCache<Authenticated>(() => hub.hearsOtherInstances);
  hub.watchTokens(tokenCache);
  let worker: JobWorker | undefined;
  const cursorKey = Buffer.from(await getOrCreateSetting(database.db, 'cursor_key', randomBytes(32).toString('hex')), 'hex');
  const deps: HandlerDeps = {
    db: database.db,
    provider: database.provider,
    clock: systemClock,
    ids: randomIds,
    cursorKey,
    config,
    outbound: createOutboundClient(config),
    events: hub,
    streams: hub,
    // The worker is built below, from these deps; kicks before it exists have nothing to wake.
    jobs: { kick: (lane) => worker?.kick(lane) },
    tokenCache,
  };

  let tokenFile: string | null = null;
  let tokenCreated = false;
  if (config.instanceMode === 'desktop') {
    const t = await ensureDesktopToken(deps, config.dataDir);
    tokenFile = t.file;
    tokenCreated = t.created !== null;
    if (t.created === 'workspace') logger.info({ tokenFile: t.file }, 'created the workspace and its agent token; `npx cpa token` prints it');
    else if (t.created === 'token') logger.warn({ tokenFile: t.file }, 'the token file was missing or stale; issued a new agent token');
    else logger.info({ tokenFile: t.file }, 'agent token file');
  }

  const sweep = async () => {
    try {
      const n = await cleanupExpired(deps.db, deps.clock);
      if (n) logger.info({ removed: n }, 'removed expired idempotency keys');
    } catch (err) {
      logger.error({ err }, 'idempotency cleanup failed');
    }
    try {
      const n = await sweepUnusedMedia(deps);
      if (n) logger.info({ removed: n }, 'removed uploaded images no artifact used within 24 h');
    } catch (err) {
      logger.error({ err }, 'unused media cleanup failed');
    }
    try {
      const n = await sweepExpiredSignInLinks(deps);
      if (n) logger.info({ removed: n }, 'removed review desk sign-in links that expired unused');
    } catch (err) {
      logger.error({ err }, 'sign-in link cleanup failed');
    }
    try {
      const n = await sweepAuthorizations(deps);
      if (n) logger.info({ removed: n }, 'removed account sign-ins older than a day');
    } catch (err) {
      logger.error({ err }, 'account sign-in cleanup failed');
    }
  };
  await sweep();
  const sweeper = setInterval(() => void sweep(), 60 * 60 * 1000); // sweep() logs its own failures
  sweeper.unref();
  lifecycle.onClose('idempotency sweeper', () => clearInterval(sweeper));

  worker = new JobWorker(deps, logger.child({ component: 'jobs' }), {
    concurrency: config.workerConcurrency,
    draftConcurrency: config.draftConcurrency,
    pollMs: config.jobPollMs,
    retryBaseMs: config.jobRetryBaseMs,
    leaseMs: 60_000,
    stopGraceMs: Math.min(5_000, config.shutdownGraceSeconds * 1000),
  });
  await worker.start();
  const jobWorker = worker;
  lifecycle.onClose('job worker', () => jobWorker.stop());

  await startEventServices(hub, deps, { config, lifecycle, logger });
  const handlers = buildHandlers(deps);
  const metrics = createMetrics(deps, { subscribers: () => hub.subscriberCount, pool: database.poolStats });
  const tracing = await startTracing(config, logger);
  if (tracing) lifecycle.onClose('trace exporter', () => tracing.shutdown());
  const app = createApp({ config, deps, logger, handlers, metrics, tracing, isClosing: () => lifecycle.isClosing });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    // Node's whole-request limit (300 s) would cut off every upload slower than that: an export of a
    // few GB over home Wi-Fi. Uploads are bounded by their idle deadline (UPLOAD_IDLE_SECONDS) and
    // rate floor (UPLOAD_MIN_BYTES_PER_SECOND), other bodies by REQUEST_BODY_TIMEOUT_SECONDS
    // (http/body-deadline.ts), the head by headersTimeout.
    s.requestTimeout = 0;
    answerClientErrors(s, logger);
    s.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Without PUBLIC_BASE_URL, the OAuth callback is on the address the service listens on (the real
  // port when PORT=0); publicBaseUrl itself stays null, so nothing takes this address as public
  // (Threads fetches images only from a public one).
  config.listenUrl = url;
  logger.info({ url, database: database.provider, oauth_redirect_uri: redirectUri(config) }, 'Content Pipeline is listening');

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('shutting down: no new connections, finishing in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams and workers end first (they register on the lifecycle), then the database.
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceSeconds * 1000).unref());
      await lifecycle.close((msg, err) => logger.error({ err }, msg));
      await Promise.race([closed, grace]);
      server.closeAllConnections();
      // Closing the pool waits for queries still checked out; never let that hold the exit.
      const closedDb = await Promise.race([database.close().then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000).unref())]);
      if (!closedDb) logger.warn('the database connections did not close within 5 s; exiting anyway');
      logger.info('stopped');
    })();
    return stopping;
  };
  return { server, url, deps, hub, config, logger, lifecycle, tokenFile, tokenCreated, stop };
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  // A person at a terminal gets a start-up message and readable logs; a file or a pipe, JSON lines.
  const mode = consoleModeOf(process.stdout);
  const running = await start(config, { logDestination: logDestination(mode) });
  // One request's unexpected error never ends the process (lib/safety-net.ts).
  installSafetyNet(running.logger);
  if (mode === 'human') {
    // The sign-in link goes to the terminal only, never into the logs (a file or a pipe get none).
    const desk = running.tokenFile ? await desktopSignInLink(running.deps, readFileSync(running.tokenFile, 'utf8').trim()) : null;
    const deskLink = desk ? `${running.url}${desk}` : null;
    process.stdout.write(
      startupMessage({
        url: running.url,
        tokenFile: running.tokenFile,
        tokenCreated: running.tokenCreated,
        dataDir: config.dataDir,
        databaseUrl: config.databaseUrl,
        deskLink,
        oauthRedirectUri: redirectUri(config),
      }),
    );
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      running.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
