// The server's operator console: the `cpa admin` commands, which run on the server host and work
// on its database directly (there is no admin HTTP API by design). `cpa` (clients/cli) does not
// import the server: it loads this module through the package's `#cpa/operator-commands` import
// (package.json "imports"), only when the command line asks for `admin` (or `completion`), and
// hands it the `admin` command to fill. See "The clients and the server" in docs/contributing.md.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { OperatorCommands } from '../../clients/cli/src/operator-seam.js';
import { registerBackupCommands } from './backup.js';
import { registerDeliveryCommands } from './deliveries.js';
import { registerWorkspaceCommands } from './workspaces.js';

export const registerOperatorCommands: OperatorCommands['registerOperatorCommands'] = (admin: CommandUnknownOpts) => {
  registerWorkspaceCommands(admin);
  registerDeliveryCommands(admin);
  registerBackupCommands(admin);
};
