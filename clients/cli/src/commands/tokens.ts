// `cpa tokens create|rotate|current|revoke` (createToken, rotateToken, getCurrentToken, revokeToken; `cpa tokens list` is with the other lists):
// named agent tokens that hold only the scopes they are given. Needs a token with `admin`, such as
// the desktop token (`cpa token`).
import { InvalidArgumentError, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { printJson, show } from '../output.js';
import { io } from '../io.js';

const SCOPES = ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'] as const;
/** `--scope read,draft` or `--scope read --scope draft`. */
const scopeList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `3600`, `90s`, `30m`, `1h`, `2d` → seconds (the service refuses what is out of range). */
function parseDuration(value: string): number {
  const m = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('a number of seconds, or a number and s, m, h or d (e.g. 1h)');
  return Number(m[1]) * UNIT_SECONDS[m[2] || 's']!;
}

export function registerTokensCommands(program: Command) {
  const tokens = program.command('tokens').description("the workspace's agent tokens, each with only the scopes it was given (needs a token with admin)");
  tokens
    .command('create')
    .description('make a named token and print its secret, shown this once (createToken)')
    .requiredOption('--name <name>', 'a name for people, e.g. the agent that will hold it')
    .requiredOption('--scope <scopes>', `its scopes, comma-separated or repeated (${SCOPES.join(', ')})`, scopeList)
    .option('--expires-at <instant>', 'when it stops working, RFC 3339 with an offset (default: never)')
    .action(
      action(async (cli, o) => {
        const body: Schemas['CreateTokenRequest'] = { name: o.name, scopes: o.scope as Schemas['CreateTokenRequest']['scopes'] };
        if (o.expiresAt !== undefined) body.expires_at = o.expiresAt;
        const created = await unwrap(cli.client().POST('/api/agent/v1/tokens', { body }));
        if (cli.json) printJson(created);
        else {
          io.stdout.write(`${created.secret}\n`);
          io.stderr.write(`Token ${created.token.id} (${created.token.scopes.join(', ')}): the secret above is shown this once.\n`);
        }
      }),
    );
  tokens
    .command('rotate')
    .description(
      'replace a token: a new one with the same name, scopes and expiry, its secret printed once; the old one works for the overlap, then is 401 (rotateToken)',
    )
    .argument('<id>', 'the token id (tok_…), from cpa tokens list')
    .option('--overlap <duration>', 'how long the old token keeps working: seconds, or 30m, 1h, 2d (0 … 7d; default 24h)', parseDuration)
    .action(
      action(async (cli, id: string, o) => {
        // Without --overlap the service's default (24 h) applies.
        const body = (o.overlap === undefined ? {} : { overlap_seconds: o.overlap }) as Schemas['RotateTokenRequest'];
        const rotated = await unwrap(cli.client().POST('/api/agent/v1/tokens/{id}/rotate', { params: { path: { id } }, body }));
        if (cli.json) printJson(rotated);
        else {
          io.stdout.write(`${rotated.secret}\n`);
          io.stderr.write(
            `Token ${rotated.token.id} replaces ${rotated.previous.id}, which works until ${rotated.previous.expires_at ?? 'never'}: the secret above is shown this once.\n`,
          );
        }
      }),
    );
  tokens
    .command('current')
    .description('the token this command runs with: its kind, name, scopes and expiry, never its secret; any token may ask (getCurrentToken)')
    .action(action(async (cli) => show(cli.json, await unwrap(cli.client().GET('/api/agent/v1/tokens/current')))));
  tokens
    .command('revoke')
    .description('revoke a token: it answers 401 from now on (revokeToken)')
    .argument('<id>', 'the token id (tok_…), from cpa tokens list')
    .action(action(async (cli, id: string) => show(cli.json, await unwrap(cli.client().DELETE('/api/agent/v1/tokens/{id}', { params: { path: { id } } })))));
}
