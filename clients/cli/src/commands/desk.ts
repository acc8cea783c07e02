// `cpa desk [--name NAME]`: a fresh one-time sign-in link to the review desk for a person
// (createDeskSignInLink; by default the operating system's user), and `cpa desk sign-in CODE`, the
// exchange the page makes (exchangeDeskSignIn), for scripts and tests.
import { userInfo } from 'node:os';
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { printJson } from '../output.js';
import { io } from '../io.js';

export function registerDeskCommands(program: Command) {
  const desk = program
    .command('desk')
    .description(
      'print a one-time sign-in link to the review desk for a person, valid 10 minutes: it signs them in with a session of their own; needs admin (createDeskSignInLink)',
    )
    .option('--name <name>', "the person's name, which their session carries (default: this computer's user name)")
    .action(
      action(async (cli, o) => {
        const link = await unwrap(cli.client().POST('/api/desk/sign-in-links', { body: { name: o.name ?? osUser() } }));
        const url = `${cli.settings.baseUrl.replace(/\/+$/, '')}${link.path}`;
        if (cli.json) printJson({ ...link, url });
        else io.stdout.write(`${url}\n(works once, until ${link.expires_at}; the desk is at ${cli.settings.baseUrl.replace(/\/+$/, '')}/)\n`);
      }),
    );
  desk
    .command('sign-in')
    .description("exchange a sign-in link's code for a person's session, once (exchangeDeskSignIn); prints its cps_ token; needs no token")
    .argument('<code>', 'the code after #/sign-in/ in the link')
    .action(
      action(async (cli, code: string) => {
        const s = await unwrap(cli.client({ auth: false }).POST('/api/desk/sign-in', { body: { code } }));
        if (cli.json) printJson(s);
        else {
          io.stdout.write(`${s.token}\n`);
          io.stderr.write(`Signed in as ${s.name} (session ${s.id}, until ${s.expires_at} unless used).\n`);
        }
      }),
    );
}

/** This computer's user name, or none (the service then names the person itself). */
function osUser(): string | undefined {
  try {
    return userInfo().username.trim().slice(0, 100) || undefined;
  } catch {
    return undefined;
  }
}
