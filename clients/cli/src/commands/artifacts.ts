// Artifacts: read one (text, state, genealogy, variants with a thread preview), set a platform
// variant, move it between states and publish it.
import { Argument, Option, type Command } from 'commander';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printJson, printText, show } from '../output.js';

type Variant = Schemas['PlatformVariant'];
export type Target = Schemas['TargetPlatform'];
export const TARGETS: Target[] = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'];

/**
 * A variant as people read it: a heading with the platform's rule, then each post numbered with
 * its counted length against the limit (a thread preview), or the reason it cannot be posted.
 */
export function variantPreview(v: Variant): string {
  const kind = v.problem ? 'cannot be posted' : v.is_thread ? `thread of ${v.parts.length}` : 'one post';
  const who = v.publishable ? 'published here' : 'export only';
  const lines = [`── ${v.platform}: ${kind}, ${v.length}/${v.limit} ${v.counting}, ${v.origin}, ${who}`];
  if (v.problem) lines.push(`   ${v.problem}`);
  v.parts.forEach((p, i) => {
    lines.push(`[${i + 1}/${v.parts.length}] ${p.length}/${v.limit}`);
    lines.push(...p.text.split('\n').map((l) => `  ${l}`));
  });
  return lines.join('\n');
}

function printArtifact(cli: Cli, a: Schemas['Artifact']) {
  if (cli.json) return printJson(a);
  show(false, { ...a, variants: a.variants.map((v) => v.platform) }, ['text']);
  printText(a.text);
  for (const v of a.variants) printText(variantPreview(v));
}

export function registerArtifactCommands(program: Command) {
  const artifacts = program.command('artifacts').description('drafts: read, move between states, publish');

  artifacts
    .command('get')
    .description('show an artifact: its state, genealogy, text, and each platform variant with a preview of its posts (getArtifact)')
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
    .command('variant')
    .description("set an artifact's text or thread for one platform: your own parts, a text to split, or neither to add the platform from the artifact's text (putArtifactVariant)")
    .argument('<artifact>', 'artifact id')
    .addArgument(new Argument('<platform>', 'the platform').choices(TARGETS))
    .option('--text <text>', 'a text for this platform, split into a thread here if it does not fit')
    .option('--part <text...>', 'your own split: one post per --part, in order')
    .option('--numbered', 'number the parts of a thread (" 1/3"), counted in the limit')
    .action(
      action<[string, Target], { text?: string; part?: string[]; numbered?: boolean }>(async (cli, id, platform, o) => {
        if (o.text !== undefined && o.part) throw new CliError('give --text or --part, not both.', EXIT.usage);
        const body = { ...(o.text !== undefined ? { text: o.text } : {}), ...(o.part ? { parts: o.part } : {}), ...(o.numbered ? { numbered: true } : {}) };
        const v = await unwrap(cli.client().PUT('/api/agent/v1/artifacts/{id}/variants/{platform}', { params: { path: { id, platform } }, body }));
        if (cli.json) printJson(v);
        else process.stdout.write(`${variantPreview(v)}\n`);
      }),
    );

  keyOption(artifacts.command('publish').description('publish an artifact in review or ready (publishArtifact)').argument('<artifact>', 'artifact id')).action(
    action<[string], { idempotencyKey?: string }>(async (cli, id, o) => {
      const body = { idempotency_key: o.idempotencyKey };
      printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/publish', { params: { path: { id } }, body })));
    }),
  );
}
