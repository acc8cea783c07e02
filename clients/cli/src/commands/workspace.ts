// `cpa workspace get|set` (getWorkspace, updateWorkspace): the token's workspace and its settings,
// today the approval gate (`--approval-required`; changing it needs a token with admin).
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { show } from '../output.js';

export function registerWorkspaceCommands(program: Command) {
  const workspace = program.command('workspace').description("the token's workspace and its settings (the approval gate)");
  workspace
    .command('get')
    .description('show the workspace: id, name, approval_required (getWorkspace)')
    .action(action(async (cli) => show(cli.json, await unwrap(cli.client().GET('/api/agent/v1/workspace')))));
  workspace
    .command('set')
    .description('change a setting; needs a token with admin (updateWorkspace)')
    .addOption(
      new Option('--approval-required <on>', 'true: publish and schedule only what a person (or a token with approve) approved; false: no gate')
        .choices(['true', 'false'] as const)
        .makeOptionMandatory(),
    )
    .action(
      action(async (cli, o) =>
        show(cli.json, await unwrap(cli.client().PATCH('/api/agent/v1/workspace', { body: { approval_required: o.approvalRequired === 'true' } }))),
      ),
    );
}
