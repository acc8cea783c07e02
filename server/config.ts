// Configuration from the environment, checked once at start. Every problem is reported with the
// variable's name, and the process refuses to start rather than run half-configured.
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** `postgresql://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl: string | null;
  instanceMode: 'desktop' | 'team';
  rateLimitPerMinute: number;
  /**
   * Where the rate-limit counts live (`RATE_LIMIT_STORE`): `database` (shared by every instance
   * on the PostgreSQL database; the default there), `memory` (this instance only; the default on
   * SQLite, and enough for a single PostgreSQL instance). README.md, "Running several instances".
   */
  rateLimitStore: 'memory' | 'database';
  validateResponses: boolean;
  webhookSigningSecret: string | null;
  scraperSigningSecret: string | null;
  /**
   * The bearer token `GET /metrics` asks for (`METRICS_TOKEN`, at least 16 characters). Unset:
   * /metrics answers loopback callers only (docs/operations.md).
   */
  metricsToken: string | null;
  /** OpenTelemetry traces: the OTLP base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`), or the traces one itself (`…_TRACES_ENDPOINT`); both unset: no tracing. */
  otlpEndpoint: string | null;
  otlpTracesEndpoint: string | null;
  /** `OTEL_SERVICE_NAME` (default content-pipeline) and the batch delay (`OTEL_BSP_SCHEDULE_DELAY`, ms). */
  otelServiceName: string;
  otelExportDelayMs: number;
  logLevel: string;
  /** Seconds between SSE heartbeats (15 by the spec; tests lower it). */
  heartbeatSeconds: number;
  /** Seconds after which the server ends an SSE stream (the client resumes with Last-Event-ID); 0 = never (`STREAM_MAX_SECONDS`). */
  streamMaxSeconds: number;
  /** Workspace id that receives webhook events naming none of its resources (`WEBHOOK_DEFAULT_WORKSPACE`, docs/events.md). */
  webhookDefaultWorkspace: string | null;
  /** How long (seconds) SIGTERM waits for in-flight requests before closing anyway. */
  shutdownGraceSeconds: number;
  outbound: {
    /**
     * Hosts (`host` or `host:port`) that the outbound client may reach even though they resolve
     * to non-public addresses. Off by default; tests use it for their local fakes.
     */
    allowHosts: string[];
    /** An extra CA certificate (PEM file) to trust, for a local HTTPS test server. */
    extraCaFile: string | null;
    /** Allow plain http:// for the hosts on the allow-list (local fakes without TLS). */
    allowHttpForAllowedHosts: boolean;
    userAgent: string;
  };
  /** An OpenAI-compatible chat-completions provider; null when not configured. */
  llm: { baseUrl: string; apiKey: string | null; model: string } | null;
  /** Key (64 hex chars) that encrypts stored credentials; default: a key file in DATA_DIR. */
  credentialsKey: string | null;
  /** Receivers the webhook emitter delivers events to (`WEBHOOK_TARGETS`, comma-separated https URLs). */
  webhookTargets: string[];
  /** Background jobs run at once by this instance's worker (drafting runs aside: `draftConcurrency`). */
  workerConcurrency: number;
  /** Drafting runs (`draft`, `regenerate_variant`) run at once by this instance's worker (`DRAFT_CONCURRENCY`, default 16). */
  draftConcurrency: number;
  /** Longest pause (ms) between two looks of the job worker at the queue (`JOB_POLL_MS`, default 1000). */
  jobPollMs: number;
  /** First retry delay (ms) after a transient job failure, doubled per attempt (`JOB_RETRY_BASE_MS`, default 5000). */
  jobRetryBaseMs: number;
  /** Largest export upload accepted, in bytes (`IMPORT_MAX_BYTES`, default 8 GiB). */
  importMaxBytes: number;
  /** Largest image upload accepted (`POST /media`), in bytes (`MEDIA_MAX_BYTES`, default 32 MiB). */
  mediaMaxBytes: number;
  /**
   * Seconds an upload (`POST /imports`, `POST /media`) may go without a byte before it is dropped
   * with 408 and whatever it wrote removed (`UPLOAD_IDLE_SECONDS`, default 30).
   */
  uploadIdleSeconds: number;
  /**
   * The slowest an upload may arrive, in bytes per second averaged over the last
   * `uploadRateWindowSeconds` (`UPLOAD_MIN_BYTES_PER_SECOND`, default 1024; 0: no floor). Checked
   * once the upload has lasted a window; past it, 408 and whatever it wrote removed. Time the
   * service itself spends storing the bytes is not counted against the client.
   */
  uploadMinBytesPerSecond: number;
  /** The window of that average, in seconds (`UPLOAD_RATE_WINDOW_SECONDS`, default 60). */
  uploadRateWindowSeconds: number;
  /** Uploads a workspace may have in progress at once on this instance (`UPLOAD_MAX_CONCURRENT`, default 4); more: 429. */
  uploadMaxConcurrent: number;
  /**
   * How long a request other than an upload may take to send its (JSON) body
   * (`REQUEST_BODY_TIMEOUT_SECONDS`, default 300): past it, 408 and the connection closed. Uploads
   * have no total time limit (a multi-GB export over a slow line takes as long as it takes); the
   * idle deadline and the rate floor above bound them instead.
   */
  requestBodySeconds: number;
  /** The Bluesky PDS / entryway the bluesky adapter talks to (`BLUESKY_SERVICE_URL`, default https://bsky.social). */
  blueskyServiceUrl: string;
  /**
   * The service's public address (`PUBLIC_BASE_URL`; null: the address it listens on,
   * `http://HOST:PORT`): the OAuth callback is `<it>/oauth/callback` (docs/accounts.md).
   */
  publicBaseUrl: string | null;
  /** The address the service listens on, once it does (set by main.ts; the real port when PORT=0). */
  listenUrl?: string;
  /** The operator's developer apps for signing in (docs/accounts.md); null: not configured. */
  oauthApps: Record<'x' | 'linkedin' | 'threads', { clientId: string; clientSecret: string } | null>;
  /**
   * Test-only (off by default): one origin that replaces a platform's authorization, token and
   * user-info hosts (`X_OAUTH_BASE_URL`, `LINKEDIN_OAUTH_BASE_URL`, `THREADS_OAUTH_BASE_URL`), the
   * paths staying the platform's own; used with OUTBOUND_ALLOW_HOSTS to reach a local fake.
   */
  oauthBaseUrls: Record<'x' | 'linkedin' | 'threads', string | null>;
  /**
   * The API bases of the platforms posted to with an OAuth access token (`X_API_BASE_URL`,
   * `LINKEDIN_API_BASE_URL`, `THREADS_API_BASE_URL`): the platforms' own by default; tests point
   * them at local fakes. Threads fetches a post's images from a public URL, so images go to
   * Threads only when `PUBLIC_BASE_URL` is set (GET /api/media-public/{token}).
   */
  xApiBaseUrl: string;
  linkedinApiBaseUrl: string;
  threadsApiBaseUrl: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  const n = Number(raw);
  if (n < min || n > max) problems.push(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function boolVar(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  problems.push(`${name} must be true or false, got ${JSON.stringify(raw)}`);
  return fallback;
}

function secretVar(env: Env, name: string, problems: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16) problems.push(`${name} must be at least 16 characters long`);
  return raw;
}

/** An http(s) base URL (no trailing slash), `fallback` when unset. */
function baseUrlVar(env: Env, name: string, fallback: string, problems: string[]): string {
  return (urlVar(env, name, problems) ?? fallback).replace(/\/+$/, '');
}

function urlVar(env: Env, name: string, problems: string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!/^https?:\/\/[^/\s]+/.test(raw)) problems.push(`${name} must be an http(s) URL, e.g. http://127.0.0.1:4318`);
  return raw;
}

/** A developer app: both settings, or neither (one without the other is a mistake worth refusing to start over). */
function appVar(env: Env, idName: string, secretName: string, problems: string[]): { clientId: string; clientSecret: string } | null {
  const clientId = env[idName]?.trim();
  const clientSecret = env[secretName]?.trim();
  if (!clientId && !clientSecret) return null;
  if (!clientId || !clientSecret) {
    problems.push(
      `${clientId ? secretName : idName} must be set with ${clientId ? idName : secretName} (the developer app's client id and secret; docs/accounts.md)`,
    );
    return null;
  }
  return { clientId, clientSecret };
}

function rateLimitStoreVar(env: Env, databaseUrl: string | null, problems: string[]): Config['rateLimitStore'] {
  const raw = env.RATE_LIMIT_STORE?.trim() || 'auto';
  if (raw === 'auto') return databaseUrl ? 'database' : 'memory';
  if (raw === 'memory') return raw;
  if (raw === 'database' && databaseUrl) return raw;
  problems.push(
    raw === 'database'
      ? 'RATE_LIMIT_STORE=database needs DATABASE_URL (PostgreSQL); SQLite serves one instance, counted in memory'
      : `RATE_LIMIT_STORE must be auto, memory or database, got ${JSON.stringify(raw)}`,
  );
  return 'memory';
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgresql:// (leave it unset for the embedded SQLite database)');
  }
  const mode = (env.INSTANCE_MODE ?? 'desktop').trim();
  if (mode !== 'desktop' && mode !== 'team') problems.push(`INSTANCE_MODE must be desktop or team, got ${JSON.stringify(mode)}`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const config = {
    host: env.HOST?.trim() || '127.0.0.1',
    port: intVar(env, 'PORT', 8787, 0, 65535, problems),
    dataDir: path.resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl,
    instanceMode: mode as Config['instanceMode'],
    rateLimitPerMinute: intVar(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000, problems),
    rateLimitStore: rateLimitStoreVar(env, databaseUrl, problems),
    validateResponses: boolVar(env, 'VALIDATE_RESPONSES', true, problems),
    webhookSigningSecret: secretVar(env, 'WEBHOOK_SIGNING_SECRET', problems),
    scraperSigningSecret: secretVar(env, 'SERVICE_SCRAPER_SIGNING_SECRET', problems),
    metricsToken: secretVar(env, 'METRICS_TOKEN', problems),
    otlpEndpoint: urlVar(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', problems),
    otlpTracesEndpoint: urlVar(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', problems),
    otelServiceName: env.OTEL_SERVICE_NAME?.trim() || 'content-pipeline',
    otelExportDelayMs: intVar(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 600_000, problems),
    logLevel,
    heartbeatSeconds: intVar(env, 'STREAM_HEARTBEAT_SECONDS', 15, 1, 3600, problems),
    streamMaxSeconds: intVar(env, 'STREAM_MAX_SECONDS', 0, 0, 86_400, problems),
    webhookDefaultWorkspace: env.WEBHOOK_DEFAULT_WORKSPACE?.trim() || null,
    shutdownGraceSeconds: intVar(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 600, problems),
  } as Config;
  const allowHosts = (env.OUTBOUND_ALLOW_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const llmBase = env.LLM_BASE_URL?.trim();
  if (llmBase && !/^https?:\/\//.test(llmBase)) problems.push('LLM_BASE_URL must be an http(s) URL, e.g. https://api.openai.com/v1');
  const credentialsKey = env.CREDENTIALS_KEY?.trim() || null;
  if (credentialsKey && !/^[0-9a-f]{64}$/i.test(credentialsKey)) problems.push('CREDENTIALS_KEY must be 64 hexadecimal characters (32 bytes)');
  const bsky = env.BLUESKY_SERVICE_URL?.trim();
  if (bsky && !/^https?:\/\/[^/\s]+/.test(bsky)) problems.push('BLUESKY_SERVICE_URL must be an http(s) URL, e.g. https://bsky.social');
  const webhookTargets = (env.WEBHOOK_TARGETS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const t of webhookTargets) if (!/^https?:\/\/\S+$/.test(t)) problems.push(`WEBHOOK_TARGETS holds ${JSON.stringify(t)}, which is not an http(s) URL`);
  // No default model: a name that one provider has (gpt-4o-mini) is one a local server (Ollama,
  // llama.cpp) does not, and every draft would then fail at the provider. Say so at start instead.
  const llmModel = env.LLM_MODEL?.trim() ?? '';
  if (llmBase && !llmModel)
    problems.push(
      'LLM_MODEL must be set with LLM_BASE_URL: the name of a model your provider serves (`ollama list` names those of Ollama, e.g. llama3.2:3b; GET LLM_BASE_URL/models lists them on any OpenAI-compatible server)',
    );
  Object.assign(config, {
    outbound: {
      allowHosts,
      extraCaFile: env.OUTBOUND_EXTRA_CA_FILE?.trim() || null,
      allowHttpForAllowedHosts: boolVar(env, 'OUTBOUND_ALLOW_HTTP_FOR_ALLOWED_HOSTS', false, problems),
      userAgent: env.OUTBOUND_USER_AGENT?.trim() || 'ContentPipeline/1.0 (+https://github.com/content-pipeline/content-pipeline)',
    },
    llm: llmBase ? { baseUrl: llmBase.replace(/\/+$/, ''), apiKey: env.LLM_API_KEY?.trim() || null, model: llmModel } : null,
    credentialsKey,
    webhookTargets,
    workerConcurrency: intVar(env, 'WORKER_CONCURRENCY', 2, 1, 64, problems),
    draftConcurrency: intVar(env, 'DRAFT_CONCURRENCY', 16, 1, 256, problems),
    jobPollMs: intVar(env, 'JOB_POLL_MS', 1000, 10, 60_000, problems),
    jobRetryBaseMs: intVar(env, 'JOB_RETRY_BASE_MS', 5000, 1, 3_600_000, problems),
    importMaxBytes: intVar(env, 'IMPORT_MAX_BYTES', 8 * 1024 ** 3, 1024, Number.MAX_SAFE_INTEGER, problems),
    mediaMaxBytes: intVar(env, 'MEDIA_MAX_BYTES', 32 * 1024 ** 2, 1024, 1024 ** 3, problems),
    uploadIdleSeconds: intVar(env, 'UPLOAD_IDLE_SECONDS', 30, 1, 3600, problems),
    uploadMinBytesPerSecond: intVar(env, 'UPLOAD_MIN_BYTES_PER_SECOND', 1024, 0, 1024 ** 3, problems),
    uploadRateWindowSeconds: intVar(env, 'UPLOAD_RATE_WINDOW_SECONDS', 60, 1, 3600, problems),
    uploadMaxConcurrent: intVar(env, 'UPLOAD_MAX_CONCURRENT', 4, 1, 1000, problems),
    requestBodySeconds: intVar(env, 'REQUEST_BODY_TIMEOUT_SECONDS', 300, 1, 3600, problems),
    blueskyServiceUrl: (env.BLUESKY_SERVICE_URL?.trim() || 'https://bsky.social').replace(/\/+$/, ''),
    publicBaseUrl: urlVar(env, 'PUBLIC_BASE_URL', problems)?.replace(/\/+$/, '') ?? null,
    oauthApps: {
      x: appVar(env, 'X_CLIENT_ID', 'X_CLIENT_SECRET', problems),
      linkedin: appVar(env, 'LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET', problems),
      threads: appVar(env, 'THREADS_APP_ID', 'THREADS_APP_SECRET', problems),
    },
    oauthBaseUrls: {
      x: urlVar(env, 'X_OAUTH_BASE_URL', problems)?.replace(/\/+$/, '') ?? null,
      linkedin: urlVar(env, 'LINKEDIN_OAUTH_BASE_URL', problems)?.replace(/\/+$/, '') ?? null,
      threads: urlVar(env, 'THREADS_OAUTH_BASE_URL', problems)?.replace(/\/+$/, '') ?? null,
    },
    xApiBaseUrl: baseUrlVar(env, 'X_API_BASE_URL', 'https://api.x.com', problems),
    linkedinApiBaseUrl: baseUrlVar(env, 'LINKEDIN_API_BASE_URL', 'https://api.linkedin.com', problems),
    threadsApiBaseUrl: baseUrlVar(env, 'THREADS_API_BASE_URL', 'https://graph.threads.net/v1.0', problems),
  });
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
