// Connected accounts: add, or rotate credentials. The credential is best given through a file or
// stdin (`--auth-material-file -`) or CPA_AUTH_MATERIAL, so that it does not show in `ps`.
import { readFileSync } from 'node:fs';
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { show } from '../output.js';

interface ConnectFlags {
  platform: Schemas['Platform'];
  handle: string;
  authMaterial?: string;
  authMaterialFile?: string;
  secondaryAuth?: string;
  proxyUrl?: string;
  idempotencyKey?: string;
}

function authMaterial(o: ConnectFlags): string {
  if (o.authMaterial !== undefined && o.authMaterialFile !== undefined) {
    throw new CliError('Give the credential once: --auth-material (or CPA_AUTH_MATERIAL) or --auth-material-file.', EXIT.usage);
  }
  if (o.authMaterialFile !== undefined) {
    try {
      // `-` is stdin; a trailing newline from `echo` or an editor is not part of a token.
      const raw = readFileSync(o.authMaterialFile === '-' ? 0 : o.authMaterialFile, 'utf8');
      return o.platform === 'archive' ? raw : raw.replace(/\r?\n$/, '');
    } catch (err) {
      throw new CliError(`Cannot read ${o.authMaterialFile}: ${(err as Error).message}`, EXIT.usage);
    }
  }
  return o.authMaterial ?? '';
}

export function registerAccountCommands(program: Command) {
  const accounts = program.command('accounts').description('connected platform accounts');
  keyOption(
    accounts
      .command('connect')
      .description('connect a platform account, or rotate its credentials; the credential is probed at once (connectAccount)')
      .addOption(
        new Option('--platform <platform>', 'platform adapter')
          .choices(['rss', 'mastodon', 'bluesky', 'archive', 'x', 'linkedin', 'threads'])
          .makeOptionMandatory(),
      )
      .requiredOption('--handle <handle>', 'the account: @user@instance, user.bsky.social, a feed URL, an archive name')
      .addOption(new Option('--auth-material <secret>', 'the credential (token, app password; empty for rss)').env('CPA_AUTH_MATERIAL'))
      .option('--auth-material-file <path>', 'read the credential (or, for archive, the export file) from a file; - reads stdin')
      .option('--secondary-auth <value>', 'a second factor, when the platform needs one (archive: x, linkedin or mastodon)')
      .option('--proxy-url <url>', 'an http(s):// or socks5:// proxy for this account'),
  ).action(
    action(async (cli, o) => {
      const body = {
        platform: o.platform,
        handle: o.handle,
        auth_material: authMaterial(o),
        ...(o.secondaryAuth ? { secondary_auth: o.secondaryAuth } : {}),
        ...(o.proxyUrl ? { proxy_url: o.proxyUrl } : {}),
        idempotency_key: o.idempotencyKey,
      };
      const result = await unwrap(cli.client().POST('/api/agent/v1/accounts/connect', { body }));
      show(cli.json, result);
    }),
  );
}
