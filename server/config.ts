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
  validateResponses: boolean;
  webhookSigningSecret: string | null;
  scraperSigningSecret: string | null;
  logLevel: string;
  /** Seconds between SSE heartbeats (15 by the spec; tests lower it). */
  heartbeatSeconds: number;
  /** How long (seconds) SIGTERM waits for in-flight requests before closing anyway. */
  shutdownGraceSeconds: number;
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
  const config: Config = {
    host: env.HOST?.trim() || '127.0.0.1',
    port: intVar(env, 'PORT', 8787, 0, 65535, problems),
    dataDir: path.resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl,
    instanceMode: mode as Config['instanceMode'],
    rateLimitPerMinute: intVar(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000, problems),
    validateResponses: boolVar(env, 'VALIDATE_RESPONSES', true, problems),
    webhookSigningSecret: secretVar(env, 'WEBHOOK_SIGNING_SECRET', problems),
    scraperSigningSecret: secretVar(env, 'SERVICE_SCRAPER_SIGNING_SECRET', problems),
    logLevel,
    heartbeatSeconds: intVar(env, 'STREAM_HEARTBEAT_SECONDS', 15, 1, 3600, problems),
    shutdownGraceSeconds: intVar(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 600, problems),
  };
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
