// Where the API is and which token to send: flags, then the environment (both through commander's
// `.env()`), then the config file, then — for a local server only — the desktop token file.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRootOf } from '../../../shared/project-root.js';
import { TOKEN_FILE } from '../../../shared/token-file.js';
import { CliError, EXIT } from './errors.js';
import { io } from './io.js';

export interface GlobalOptions {
  baseUrl?: string;
  token?: string;
  config?: string;
  dataDir?: string;
  /** `--json [fields]`: true for the flag alone, a field list (or '' for every field) when it has a value. */
  json?: boolean | string;
  retries?: string;
}

export interface Settings {
  baseUrl: string;
  token: string | null;
  /** Where the token came from (shown by `cpa config`). */
  tokenSource: string | null;
  retries: number;
  configFile: string | null;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

interface ConfigFile {
  base_url?: string;
  token?: string;
  token_file?: string;
}

export function defaultConfigPath(env: NodeJS.ProcessEnv = io.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'cpa', 'config.json');
}

function readConfig(file: string, explicit: boolean): ConfigFile {
  if (!existsSync(file)) {
    if (explicit) throw new CliError(`The config file ${file} does not exist.`, EXIT.usage);
    return {};
  }
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as ConfigFile;
  } catch (err) {
    throw new CliError(
      `The config file ${file} is not valid: ${(err as Error).message}.`,
      EXIT.usage,
      'It holds a JSON object with any of "base_url", "token", "token_file".',
    );
  }
}

/**
 * The desktop token file: `${DATA_DIR}/agent-token`, DATA_DIR defaulting to ./data as for the
 * server. Without DATA_DIR and without ./data/agent-token here (cpa run from outside the
 * checkout, through an alias or a link to its launcher), the checkout's own `data/agent-token`:
 * the file `npm start` writes there by default.
 */
export function desktopTokenFile(dataDir: string | undefined, checkout: string = projectRootOf(import.meta.url)): string {
  if (dataDir) return path.resolve(dataDir, TOKEN_FILE);
  const here = path.resolve('./data', TOKEN_FILE);
  return existsSync(here) ? here : path.join(checkout, 'data', TOKEN_FILE);
}

export function readTokenFile(file: string): string | null {
  if (!existsSync(file)) return null;
  const token = readFileSync(file, 'utf8').trim();
  return token || null;
}

/** A token file is only offered to a server on this machine, never sent to a remote host. */
function isLocal(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

export function resolveSettings(g: GlobalOptions, env: NodeJS.ProcessEnv = io.env): Settings {
  const explicit = Boolean(g.config);
  const configFile = g.config ? path.resolve(g.config) : defaultConfigPath(env);
  const file = readConfig(configFile, explicit);
  const baseUrl = (g.baseUrl || file.base_url || DEFAULT_BASE_URL).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new CliError(`The base URL ${JSON.stringify(baseUrl)} is not a URL.`, EXIT.usage, 'Example: --base-url http://127.0.0.1:8787');
  }
  const retries = Number(g.retries ?? 3);
  if (!Number.isInteger(retries) || retries < 0 || retries > 10) throw new CliError('--retries must be a whole number from 0 to 10.', EXIT.usage);

  let token: string | null = null;
  let tokenSource: string | null = null;
  if (g.token) [token, tokenSource] = [g.token, '--token / CPA_TOKEN'];
  else if (file.token) [token, tokenSource] = [file.token, configFile];
  else if (file.token_file) [token, tokenSource] = [readTokenFile(path.resolve(path.dirname(configFile), file.token_file)), file.token_file];
  else if (isLocal(baseUrl)) {
    const desktop = desktopTokenFile(g.dataDir);
    token = readTokenFile(desktop);
    tokenSource = token ? desktop : null;
  }
  return { baseUrl, token, tokenSource, retries, configFile: existsSync(configFile) ? configFile : null };
}
