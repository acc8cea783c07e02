// The service's OAuth callback address: what every developer app registers (docs/accounts.md).
import type { Config } from '../../config.js';

export const CALLBACK_PATH = '/oauth/callback';

/** `PUBLIC_BASE_URL` + `/oauth/callback` (the listening address when the setting is absent). */
export function redirectUri(config: Pick<Config, 'publicBaseUrl' | 'listenUrl' | 'host' | 'port'>): string {
  return `${config.publicBaseUrl ?? config.listenUrl ?? `http://${config.host}:${config.port}`}${CALLBACK_PATH}`;
}
