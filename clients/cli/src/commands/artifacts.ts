// Artifacts: read one (text, state, genealogy) and publish it.
import { Option, type Command } from 'commander';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action, type Cli } from '../context.js';
import { existsSync } from 'node:fs';
import { CliError, EXIT } from '../errors.js';
import { printText, show } from '../output.js';
import { printMedia, uploadFile } from './media.js';

function printArtifact(cli: Cli, a: Schemas['Artifact']) {
  show(cli.json, a, ['text', 'media', 'media_issues']);
  if (cli.json) return;
  printMedia(a);
  printText(a.text);
}

/** `ID=TEXT` → [ID, TEXT]; the first `=` splits (alt text may hold more). */
function altPair(raw: string): [string, string] {
  const at = raw.indexOf('=');
  if (at < 1) throw new CliError(`--alt takes ID=TEXT (e.g. --alt 'post_1:0=A bar chart'), got ${JSON.stringify(raw)}.`, EXIT.usage);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

const collect = (v: string, all: string[]) => [...all, v];

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

  artifacts
    .command('media')
    .description("set an artifact's media, in order: keep, drop (leave out), reorder, add uploads or files, set alt text (setArtifactMedia)")
    .argument('<artifact>', 'artifact id')
    .argument('[items...]', "the new list: items' ids (see cpa artifacts get), upload ids, or image files to upload")
    .option('--alt <id=text>', 'set the alt text of an item (repeatable); for a file, use its path as the id', collect, [])
    .option('--none', 'remove every item (publish the text alone)')
    .action(
      action<[string, string[]], { alt: string[]; none?: boolean }>(async (cli, id, items, o) => {
        if (o.none && items.length) throw new CliError('--none removes every item; give no items with it.', EXIT.usage);
        if (!o.none && !items.length) throw new CliError('Give the new list of items (or --none to remove them all).', EXIT.usage);
        const alts = new Map(o.alt.map(altPair));
        const client = cli.client();
        const media = [];
        for (const item of items) {
          // A path to a file (it exists here): upload it first, with its alt text.
          if (existsSync(item)) {
            const made = await uploadFile(client, item, alts.get(item));
            media.push({ id: made.id });
          } else media.push({ id: item, ...(alts.has(item) ? { alt_text: alts.get(item) } : {}) });
        }
        printArtifact(cli, await unwrap(client.PUT('/api/agent/v1/artifacts/{id}/media', { params: { path: { id } }, body: { media } })));
      }),
    );

  keyOption(artifacts.command('publish').description('publish an artifact in review or ready (publishArtifact)').argument('<artifact>', 'artifact id')).action(
    action<[string], { idempotencyKey?: string }>(async (cli, id, o) => {
      const body = { idempotency_key: o.idempotencyKey };
      printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/publish', { params: { path: { id } }, body })));
    }),
  );
}
