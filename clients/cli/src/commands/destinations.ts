// Destinations on the command line: `--to` names an account that posts, by id (`acc_…`) or as
// `platform:handle` (`mastodon:@ada@mastodon.social`, `bluesky:ada.bsky.social`, `x:@ada`).
import type { Schemas } from '../../../typescript/src/index.js';
import { CliError, EXIT } from '../errors.js';

export const TO_HELP =
  'publish to this account: its id (acc_…) or platform:handle (mastodon:@ada@mastodon.social, bluesky:ada.bsky.social, x:@ada, linkedin:ada-lovelace, threads:@ada); repeat for several';

const POSTING: readonly string[] = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'] satisfies Array<Extract<Schemas['DestinationRef'], object>['platform']>;

/** `--to` values as the contract's destinations. */
export function destinationRefs(values: string[]): Schemas['DestinationRef'][] {
  return values.map((v) => {
    if (/^acc_/.test(v)) return v;
    const at = v.indexOf(':');
    const platform = v.slice(0, at);
    if (at < 1 || !POSTING.includes(platform))
      throw new CliError(`--to takes an account id (acc_…) or PLATFORM:HANDLE (${POSTING.join(', ')}), got ${JSON.stringify(v)}.`, EXIT.usage);
    return { platform: platform as Extract<Schemas['DestinationRef'], object>['platform'], handle: v.slice(at + 1) };
  });
}

/** One destination on one line: `mastodon @ada@mastodon.social  live  https://…` (with its error, when it has one). */
export function destinationLine(d: Schemas['ArtifactDestination']): string {
  const who = `${d.platform} ${d.handle ?? ''}`.trim();
  const how = d.manual ? `${d.state} (posted by hand)` : d.state;
  const err = d.error ? `  ${d.error.code}: ${d.error.message}` : '';
  const next = d.next_attempt_at ? `  next attempt ${d.next_attempt_at}` : '';
  return `${who}  ${how}${d.url ? `  ${d.url}` : ''}${err}${next}`;
}
