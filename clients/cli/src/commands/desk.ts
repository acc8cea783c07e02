// `cpa desk`: a fresh one-time sign-in link to the review desk (createDeskSignInLink), and
// `cpa desk sign-in CODE`, the exchange the page makes (exchangeDeskSignIn), for scripts and tests.
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { printJson } from '../output.js';
import { io } from '../io.js';

export function registerDeskCommands(program: Command) {
  const desk = program
    .command('desk')
    .description('print a one-time sign-in link to the review desk, valid 10 minutes (createDeskSignInLink)')
    .action(
      action(async (cli) => {
        const link = await unwrap(cli.client().POST('/api/desk/sign-in-links'));
        const url = `${cli.settings.baseUrl.replace(/\/+$/, '')}${link.path}`;
        if (cli.json) printJson({ ...link, url });
        else io.stdout.write(`${url}\n(works once, until ${link.expires_at}; the desk is at ${cli.settings.baseUrl.replace(/\/+$/, '')}/)\n`);
      }),
    );
  desk
    .command('sign-in')
    .description('exchange a sign-in link code for the agent token it was made for, once (exchangeDeskSignIn); needs no token')
    .argument('<code>', 'the code after #/sign-in/ in the link')
    .action(
      action(async (cli, code: string) => {
        const s = await unwrap(cli.client({ auth: false }).POST('/api/desk/sign-in', { body: { code } }));
        if (cli.json) printJson(s);
        else io.stdout.write(`${s.token}\n`);
      }),
    );
}
