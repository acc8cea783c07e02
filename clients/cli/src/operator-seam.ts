// The seam between `cpa` and the server's operator console, as a leaf module (types only): the
// CLI (program.ts) loads the console through the package's `#cpa/operator-commands` import, and
// the console (server/operator/index.ts) implements this interface. Both import it from here, so
// neither imports the other's module back: the arrows run one way.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/**
 * The commands under `cpa admin`, which the server provides (its operator console, run on the
 * server host against its database): `cpa` does not import the server. The package maps
 * `#cpa/operator-commands` to the module (package.json "imports"); a build of the clients without
 * the server maps it elsewhere or leaves `admin` empty.
 */
export interface OperatorCommands {
  registerOperatorCommands(admin: CommandUnknownOpts): void;
}
