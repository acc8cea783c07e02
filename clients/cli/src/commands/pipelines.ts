// Pipelines: create or resume, read, diagnose, inbox.
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { keyOption, printAccepted, waitOptions } from '../accepted.js';
import { action, idCommand } from '../context.js';
import { note, printJson, printTable, truncate } from '../output.js';
import { CliError, EXIT } from '../errors.js';
import { limitOf } from '../options.js';
import { destinationRefs, TO_HELP } from './destinations.js';

const collect = (v: string, all: string[]) => [...all, v];

const diagnose = action<[string]>(async (cli, id) => {
  const report = await unwrap(cli.client().GET('/api/agent/v1/pipelines/{id}/diagnose', { params: { path: { id } } }));
  if (cli.json) return printJson(report);
  note(`Pipeline ${report.pipeline_id}: ${report.status} (checked ${report.checked_at})`);
  if (!report.issues.length) return note('No issue found.');
  printTable(
    ['severity', 'code', 'message', 'suggested action', 'endpoint'],
    report.issues.map((i) => [i.severity, i.code, truncate(i.message, 60), i.suggested_action, i.suggested_endpoint]),
  );
});

const inbox = action<[string, { cursor?: string; limit?: string }]>(async (cli, id, o) => {
  const query = { limit: limitOf(o.limit), cursor: o.cursor };
  const box = await unwrap(cli.client().GET('/api/agent/v1/pipelines/{id}/inbox', { params: { path: { id }, query } }));
  if (cli.json) return printJson(box);
  if (!box.data.length) return note(`The inbox of ${box.pipeline_id} is empty.`);
  const st = box.counts.by_state;
  note(`${box.counts.total} items; drafts: ${st.review} in review, ${st.ready} ready, ${st.scheduled} scheduled, ${st.publish_failed} failed`);
  printTable(
    ['priority', 'kind', 'title', 'artifact', 'post', 'suggested action'],
    box.data.map((i) => [i.priority, i.kind, truncate(i.title, 50), i.artifact_id, i.post_id, i.suggested_action]),
  );
  if (box.next_cursor) note(`More: cpa inbox ${id} --cursor ${box.next_cursor}`);
});
const inboxOptions = <C extends Command<[string]>>(c: C) =>
  c.option('--cursor <cursor>', 'start at this page (the next_cursor of a previous page)').option('--limit <n>', 'items per page, 1 to 100 (default 100)');

export function registerPipelineCommands(program: Command) {
  const pipelines = program.command('pipelines').description('create, resume and inspect pipelines');

  idCommand(
    pipelines,
    'get',
    'show a pipeline with its counts and its most recent run (getPipeline)',
    { name: 'pipeline', description: 'pipeline id' },
    (client, id) => unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id } } })),
  );

  waitOptions(
    keyOption(
      pipelines
        .command('create')
        .description('create a pipeline from a handle and an intent, or resume it, and queue an ingest run (createPipelineFromIntent)')
        .requiredOption('--handle <handle>', 'whose posts: @user@instance, user.bsky.social, an https:// feed URL, or an archive name')
        .requiredOption('--intent <intent>', 'what the drafts are for, in plain words')
        .option('--tone <tone>', 'how the drafts should sound')
        .option('--to <destination>', `${TO_HELP}; default: a mastodon or bluesky handle's own account`, collect, [] as string[]),
    ),
  ).action(
    action(async (cli, o) => {
      const body = {
        handle: o.handle,
        intent: o.intent,
        ...(o.tone ? { tone: o.tone } : {}),
        ...(o.to.length ? { destinations: destinationRefs(o.to) } : {}),
        idempotency_key: o.idempotencyKey,
      };
      const result = await unwrap(cli.client().POST('/api/agent/v1/pipelines/from-intent', { body }));
      await printAccepted(cli, result, o);
    }),
  );

  pipelines
    .command('destinations')
    .description("set where a pipeline's artifacts are published by default (setPipelineDestinations)")
    .argument('<pipeline>', 'pipeline id')
    .option('--to <destination>', TO_HELP, collect, [] as string[])
    .option('--none', 'no default destination (each publish then names its own)')
    .action(
      action(async (cli, id, o) => {
        if (!o.to.length && !o.none) throw new CliError('Name the destinations with --to (repeat for several), or --none to remove them.', EXIT.usage);
        const body = { destinations: o.none ? [] : destinationRefs(o.to) };
        const p = await unwrap(cli.client().PUT('/api/agent/v1/pipelines/{id}/destinations', { params: { path: { id } }, body }));
        if (cli.json) return printJson(p);
        if (!p.destinations.length) return note(`${p.id} has no default destination.`);
        printTable(
          ['platform', 'handle', 'account'],
          p.destinations.map((d) => [d.platform, d.handle, d.account_id ?? '(its own account, when connected)']),
        );
      }),
    );

  pipelines.command('diagnose').description("check a pipeline's health (diagnosePipeline)").argument('<pipeline>', 'pipeline id').action(diagnose);
  inboxOptions(
    pipelines.command('inbox').description("list what needs the agent's attention, a page at a time (getPipelineInbox)").argument('<pipeline>', 'pipeline id'),
  ).action(inbox);
  // Top-level short forms: `cpa diagnose ID` and `cpa inbox ID` run the same actions as the
  // `pipelines` subcommands.
  program.command('diagnose').description("check a pipeline's health (same as `pipelines diagnose`)").argument('<pipeline>', 'pipeline id').action(diagnose);
  inboxOptions(
    program.command('inbox').description("list what needs the agent's attention (same as `pipelines inbox`)").argument('<pipeline>', 'pipeline id'),
  ).action(inbox);
}
