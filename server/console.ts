// What `npm start` shows. On a terminal: a short start-up message for a person (where the server
// listens, the docs, the token file, the database) and the logs as readable lines (pino-pretty).
// Into a file or a pipe: JSON lines only, one object per line, for log collectors and scripts.
import path from 'node:path';
import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import { sqliteUrl } from './store/database.js';

export type ConsoleMode = 'human' | 'json';

/** Human on a terminal, JSON otherwise (a file, a pipe, a service manager). */
export function consoleModeOf(stream: { isTTY?: boolean }): ConsoleMode {
  return stream.isTTY === true ? 'human' : 'json';
}

/** Where pino writes: stdout as it is (JSON), or through pino-pretty (in this thread, in order). */
export function logDestination(mode: ConsoleMode, out: NodeJS.WritableStream = process.stdout): DestinationStream | undefined {
  if (mode === 'json') return undefined; // pino's default: JSON lines on stdout
  return pretty({ destination: out, sync: true, colorize: !process.env.NO_COLOR, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true });
}

export interface StartupFacts {
  url: string;
  /** null on a team host (no desktop token). */
  tokenFile: string | null;
  tokenCreated: boolean;
  dataDir: string;
  databaseUrl: string | null;
  /** A one-time sign-in link to the review desk (desktop instance, terminal only). */
  deskLink?: string | null;
  /** The callback of connecting accounts by signing in, to register in each platform's developer app (docs/accounts.md). */
  oauthRedirectUri?: string;
}

/** The database, named without its password. */
export function describeDatabase(facts: Pick<StartupFacts, 'dataDir' | 'databaseUrl'>): string {
  if (!facts.databaseUrl) return `SQLite, ${sqliteUrl(facts.dataDir).slice('file:'.length)}`;
  try {
    const u = new URL(facts.databaseUrl);
    return `PostgreSQL, ${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host || 'local socket'}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** The start-up message for a person at a terminal. */
export function startupMessage(facts: StartupFacts): string {
  const rel = (file: string) => {
    const r = path.relative(process.cwd(), file);
    return r && !r.startsWith('..') && !path.isAbsolute(r) ? `./${r}` : file;
  };
  const token = facts.tokenFile
    ? `${rel(facts.tokenFile)}${facts.tokenCreated ? ' (new)' : ''}; \`npx cpa token\` prints it`
    : 'none on a team host yet: `npx cpa admin workspace create --name NAME` makes one';
  return [
    '',
    `Content Pipeline is listening on ${facts.url}`,
    `  Review desk  ${facts.url}/${facts.deskLink ? `\n  Sign in      ${facts.deskLink}\n               (works once, for 10 minutes; \`npx cpa desk\` prints a new one)` : ' (sign in with the agent token, or a link from `npx cpa desk`)'}`,
    `  API docs     ${facts.url}/docs`,
    `  Agent API    ${facts.url}/api/agent/v1 (description: ${facts.url}/openapi.json)`,
    `  Agent token  ${token}`,
    `  Database     ${describeDatabase(facts)}`,
    ...(facts.oauthRedirectUri ? [`  Sign-in URL  ${facts.oauthRedirectUri} (the redirect URL of the X, LinkedIn and Threads apps: docs/accounts.md)`] : []),
    'Stop with Ctrl+C. Logs follow; they are JSON lines when the output is a file or a pipe.',
    '',
    '',
  ].join('\n');
}
