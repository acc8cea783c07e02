// Connected accounts: add, or rotate credentials. The credential is best given through a file or
// stdin (`--auth-material-file -`) or CPA_AUTH_MATERIAL, so that it does not show in `ps`.
// Without a credential, `connect` signs in: it prints the platform's authorization address for
// the person to open, and waits until the service's callback has connected the account.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { io } from '../io.js';
import { printJson, show } from '../output.js';

type SignInPlatform = 'mastodon' | 'x' | 'linkedin' | 'threads';
const SIGN_IN: readonly string[] = ['mastodon', 'x', 'linkedin', 'threads'];
/** How often `connect` asks whether the person came back (the state lasts 10 minutes). */
export const POLL_MS = 1000;

interface ConnectFlags {
  platform: Schemas['Platform'];
  handle?: string;
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
      .description(
        'connect a platform account, or rotate its credentials; the credential is probed at once (connectAccount). Without a credential (mastodon, x, linkedin, threads): prints the address to sign in at (startAccountAuthorization) and waits until the account is connected (getAccountAuthorization)',
      )
      .addOption(
        new Option('--platform <platform>', 'platform').choices(['rss', 'mastodon', 'bluesky', 'archive', 'x', 'linkedin', 'threads']).makeOptionMandatory(),
      )
      .option('--handle <handle>', 'the account: @user@instance (or, to sign in, the instance), user.bsky.social, a feed URL, an archive name')
      .addOption(new Option('--auth-material <secret>', 'the credential (token, app password; empty for rss)').env('CPA_AUTH_MATERIAL'))
      .option('--auth-material-file <path>', 'read the credential (or, for archive, the export file) from a file; - reads stdin')
      .option('--secondary-auth <value>', 'a second factor, when the platform needs one (archive: x, linkedin or mastodon)')
      .option('--proxy-url <url>', 'an http(s):// or socks5:// proxy for this account'),
  ).action(
    action(async (cli, o) => {
      const signIn = SIGN_IN.includes(o.platform) && o.authMaterial === undefined && o.authMaterialFile === undefined;
      if (signIn) return connectBySigningIn(cli, o.platform as SignInPlatform, o.handle, o.idempotencyKey);
      if (o.handle === undefined) throw new CliError(`--handle is required to connect ${o.platform} with a credential.`, EXIT.usage);
      const body = {
        platform: o.platform as 'rss' | 'mastodon' | 'bluesky' | 'archive',
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
  registerSignInCommands(accounts);
}

async function connectBySigningIn(cli: Cli, platform: SignInPlatform, handle: string | undefined, idempotencyKey: string | undefined) {
  const client = cli.client();
  const started = await unwrap(
    client.POST('/api/agent/v1/accounts/authorizations', { body: { platform, ...(handle ? { handle } : {}), idempotency_key: idempotencyKey } }),
  );
  io.stderr.write(`Open this address to sign in to ${platform} and approve Content Pipeline (it works once, until ${started.expires_at}):\n`);
  io.stdout.write(`${started.authorization_url}\n`);
  io.stderr.write('Waiting for the platform to send you back…\n');
  for (;;) {
    const now = await unwrap(client.GET('/api/agent/v1/accounts/authorizations/{id}', { params: { path: { id: started.id } } }));
    if (now.status === 'connected') {
      if (cli.json) printJson(now);
      else io.stderr.write(`Connected ${now.account?.handle ?? ''} (${now.account?.id ?? ''}).\n`);
      return;
    }
    if (now.status === 'failed') throw new CliError(`Not connected: ${now.failure ?? 'failed'}.`, EXIT.credential);
    await sleep(POLL_MS);
  }
}

export function registerSignInCommands(accounts: Command) {
  accounts
    .command('redirect-url')
    .description('print the callback address to register in each platform developer app, and what each platform still needs (getSignInSettings)')
    .action(
      action(async (cli) => {
        const s = await unwrap(cli.client().GET('/api/agent/v1/accounts/sign-in-settings'));
        if (cli.json) return printJson(s);
        io.stdout.write(`${s.redirect_uri}\n`);
        for (const p of s.platforms) io.stderr.write(`${p.platform}: ${p.configured ? 'ready' : `set ${p.missing_settings.join(', ')}`}\n`);
      }),
    );
  accounts
    .command('check')
    .description("check that an account's credential still works, renewing a signed-in account's token when due (checkAccount)")
    .argument('<id>', 'the account id (cpa accounts list)')
    .action(
      action(async (cli, id: string) => {
        show(cli.json, await unwrap(cli.client().POST('/api/agent/v1/accounts/check/{id}', { params: { path: { id } } })));
      }),
    );
}
