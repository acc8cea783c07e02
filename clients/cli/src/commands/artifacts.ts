// Artifacts: read one (text, state, genealogy) and publish it.
import { Option, type Command } from 'commander';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action, type Cli } from '../context.js';
import { printText, show } from '../output.js';

function printArtifact(cli: Cli, a: Schemas['Artifact']) {
  show(cli.json, a, ['text']);
  if (!cli.json) printText(a.text);
}

export function registerArtifactCommands(program: Command) {
  const artifacts = program.command('artifacts').description('drafts: read, move between states, publish');

  artifacts
    .command('get')
    .description('show an artifact: its state, genealogy and text (getArtifact)')
    .argument('<artifact>', 'artifact id')
    .action(
      action<[string]>(async (cli, id) => {
        printArtifact(cli, await unwrap(cli.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id } } })));
      }),
    );

  keyOption(
    artifacts
      .command('transition')
      .description('move an artifact: ready (approve), review (reopen) or discarded (transitionArtifact)')
      .argument('<artifact>', 'artifact id')
      .addOption(new Option('--to <state>', 'the new state').choices(['review', 'ready', 'discarded']).makeOptionMandatory()),
  ).action(
    action<[string], { to: 'review' | 'ready' | 'discarded'; idempotencyKey?: string }>(async (cli, id, o) => {
      const body = { to: o.to, idempotency_key: o.idempotencyKey };
      printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/transition', { params: { path: { id } }, body })));
    }),
  );

  keyOption(artifacts.command('publish').description('publish an artifact in review or ready (publishArtifact)').argument('<artifact>', 'artifact id')).action(
    action<[string], { idempotencyKey?: string }>(async (cli, id, o) => {
      const body = { idempotency_key: o.idempotencyKey };
      printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/publish', { params: { path: { id } }, body })));
    }),
  );
}
