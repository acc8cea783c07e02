// Artifacts: read one (text, state, genealogy, variants with a thread preview), set a platform
// variant, move it between states, publish it now or at a time, and its schedule.
import { Argument, Option, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption, waitOptions } from '../accepted.js';
import { existsSync } from 'node:fs';
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printJson, printRecord, printTable, printText, show, truncate } from '../output.js';
import { assertSucceeded, followRun, timeoutOption } from '../progress.js';
import { printMedia, uploadFile } from './media.js';
import { limitOf } from '../options.js';
import { io } from '../io.js';
import { destinationLine, destinationRefs, TO_HELP } from './destinations.js';
import { registerBulkCommands } from './bulk.js';

type Variant = Schemas['PlatformVariant'];
export type Target = Schemas['TargetPlatform'];
export const TARGETS: Target[] = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'];

/**
 * A variant as people read it: a heading with the platform's rule, then each post numbered with
 * its counted length against the limit (a thread preview), or the reason it cannot be posted.
 */
export function variantPreview(
  v: Variant,
  media: Schemas['ArtifactMedia'][] = [],
  destinations: Schemas['ArtifactDestination'][] = [],
  defaults: Schemas['PipelineDestination'][] | null = null,
): string {
  const kind = v.problem ? 'cannot be posted' : v.is_thread ? `thread of ${v.parts.length}` : 'one post';
  const who = whereItGoes(v, destinations, defaults);
  const lines = [`── ${v.platform}: ${kind}, ${v.length}/${v.limit} ${v.counting}, ${v.origin}, ${who}`];
  if (v.problem) lines.push(`   ${v.problem}`);
  const carried = v.publishable && !v.problem ? imagesByPart(media, v.parts.length) : [];
  v.parts.forEach((p, i) => {
    lines.push(`[${i + 1}/${v.parts.length}] ${p.length}/${v.limit}`);
    lines.push(...p.text.split('\n').map((l) => `  ${l}`));
    if (carried[i]?.length) lines.push(`  + images: ${carried[i]!.map((m) => `${m.id}${m.alt_text ? '' : ' (NO ALT TEXT)'}`).join(', ')}`);
  });
  return lines.join('\n');
}

/**
 * Where a variant goes, as it stands: the destinations of its platform with their state
 * (`to @ada@mastodon.social: live`), or where publishing sends it (the pipeline's default
 * destinations of its platform, `defaults`; null when not known), or what publishing it takes.
 * Never "published" for a variant that went nowhere.
 */
function whereItGoes(v: Variant, destinations: Schemas['ArtifactDestination'][], defaults: Schemas['PipelineDestination'][] | null): string {
  const here = destinations.filter((d) => d.platform === v.platform);
  if (here.length)
    return here.map((d) => `${d.manual ? 'posted by hand' : `to ${d.handle ?? d.destination}`}: ${d.state}${d.url ? ` ${d.url}` : ''}`).join('; ');
  if (!v.publishable) return 'export only (post it yourself, then: cpa artifacts mark-published)';
  const byDefault = (defaults ?? []).filter((d) => d.platform === v.platform);
  if (byDefault.length) return `publishing sends it to ${byDefault.map((d) => d.handle).join(', ')} (the pipeline's default destination)`;
  if (defaults?.length)
    return `not among the pipeline's default destinations (${defaults.map((d) => `${d.platform}:${d.handle}`).join(', ')}): name one with --to`;
  return "can be published (name a destination with --to, or set the pipeline's: cpa pipelines destinations)";
}

/** Images per post when publishing (Mastodon and Bluesky: 4; see the publish operation's description). */
const IMAGES_PER_POST = 4;

/** The images each part of a published thread carries: 4 with part 1, the next 4 with part 2, … */
function imagesByPart(media: Schemas['ArtifactMedia'][], parts: number): Schemas['ArtifactMedia'][][] {
  const images = media.filter((m) => m.type === 'image' || m.type === 'gif');
  return Array.from({ length: parts }, (_, i) => images.slice(i * IMAGES_PER_POST, (i + 1) * IMAGES_PER_POST));
}

/**
 * The pipeline's default destinations, when one of `variants` went nowhere yet (publishing sends
 * it there); null when none is pending.
 */
async function defaultsFor(cli: Cli, a: Pick<Schemas['Artifact'], 'pipeline_id' | 'destinations'>, variants: Variant[]) {
  const pending = variants.some((v) => v.publishable && !a.destinations.some((d) => d.platform === v.platform));
  if (!pending) return null;
  return (await unwrap(cli.client().GET('/api/agent/v1/pipelines/{id}', { params: { path: { id: a.pipeline_id } } }))).destinations;
}

async function printArtifact(cli: Cli, a: Schemas['Artifact']) {
  if (cli.json) return printJson(a);
  const defaults = await defaultsFor(cli, a, a.variants);
  show(false, { ...a, variants: a.variants.map((v) => v.platform) }, ['text', 'media', 'media_issues', 'destinations', 'published_parts']);
  printMedia(a);
  printText(a.text);
  for (const v of a.variants) printText(variantPreview(v, a.media ?? [], a.destinations, defaults));
  // Where it went: each destination with its state, then its posts' addresses.
  if (a.destinations.length)
    printText(a.destinations.map((d) => [destinationLine(d), ...d.parts.map((p) => `  part ${p.position}: ${p.url ?? p.external_id}`)].join('\n')).join('\n'));
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
  registerBulkCommands(artifacts);

  artifacts
    .command('get')
    .description('show an artifact: its state, genealogy, text, and each platform variant with a preview of its posts (getArtifact)')
    .argument('<artifact>', 'artifact id')
    .action(
      action(async (cli, id) => {
        await printArtifact(cli, await unwrap(cli.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id } } })));
      }),
    );

  keyOption(
    artifacts
      .command('transition')
      .description('move an artifact: ready (approve), review (reopen) or discarded (transitionArtifact)')
      .argument('<artifact>', 'artifact id')
      .addOption(new Option('--to <state>', 'the new state').choices(['review', 'ready', 'discarded']).makeOptionMandatory()),
  ).action(
    action(async (cli, id, o) => {
      const body = { to: o.to, idempotency_key: o.idempotencyKey };
      await printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/transition', { params: { path: { id } }, body })));
    }),
  );

  waitOptions(
    keyOption(
      artifacts
        .command('publish')
        .description('publish an artifact now, or at a time with --at or --local-time and --time-zone (publishArtifact)')
        .argument('<artifact>', 'artifact id')
        .option('--at <time>', 'publish at this time, RFC 3339 with an offset (2027-12-01T09:30:00+01:00); again with another time reschedules')
        .option('--local-time <time>', 'publish at this wall-clock time (2027-12-01T09:30), with --time-zone')
        .option('--time-zone <zone>', 'the IANA time zone of --local-time (Europe/Paris)')
        .option('--utc-offset <offset>', 'with --local-time in the hour repeated when clocks go back: which one (+02:00)')
        .option('--confirm-non-public', 'publish although the artifact is drawn from followers-only or connections-only posts')
        .option('--allow-missing-alt-text', 'publish although some images have no alt text (otherwise refused, naming the image)')
        .option('--to <destination>', `${TO_HELP}; default: the pipeline's destinations`, collect, [] as string[]),
    ),
  ).action(
    action(async (cli, id, o) => {
      const body = {
        idempotency_key: o.idempotencyKey,
        ...(o.to.length ? { destinations: destinationRefs(o.to) } : {}),
        ...(o.at !== undefined ? { at: o.at } : {}),
        ...(o.localTime !== undefined ? { local_time: o.localTime } : {}),
        ...(o.timeZone !== undefined ? { time_zone: o.timeZone } : {}),
        ...(o.utcOffset !== undefined ? { utc_offset: o.utcOffset } : {}),
        ...(o.confirmNonPublic ? { confirm_non_public: true } : {}),
        ...(o.allowMissingAltText ? { allow_missing_alt_text: true } : {}),
      };
      const result = await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/publish', { params: { path: { id } }, body }));
      const { artifact, run } = result;
      // A scheduled publish is not waited for: its run starts at the scheduled time.
      if (!o.wait || artifact.state === 'scheduled') {
        if (cli.json) return printJson(result);
        const due = artifact.schedule ? whenOf(artifact.schedule, new Date()) : null;
        printRecord({
          artifact_id: artifact.id,
          state: artifact.state,
          ...(due ? { scheduled_at: due.utc, [`here (${due.zone})`]: due.here, as_given: due.given, in: due.in } : {}),
          run_id: run.run_id,
        });
        printThread(cli, artifact);
        return note(
          artifact.state === 'scheduled'
            ? `Scheduled; see it with: cpa artifacts schedule list ${artifact.pipeline_id}`
            : `Follow the run: cpa wait ${run.run_id}`,
        );
      }
      const finished = await followRun(cli.client(), run.run_id, { timeoutSeconds: timeoutOption(o.timeout), quiet: cli.json });
      const after = await unwrap(cli.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id } } }));
      if (cli.json) printJson({ artifact: after, run: finished });
      else {
        printRecord({ artifact_id: after.id, state: after.state, published_url: after.published_url, run_id: finished.run_id, status: finished.status });
        printThread(cli, after);
      }
      assertSucceeded(finished);
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
      action(async (cli, id, items, o) => {
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
        await printArtifact(cli, await unwrap(client.PUT('/api/agent/v1/artifacts/{id}/media', { params: { path: { id } }, body: { media } })));
      }),
    );

  artifacts
    .command('variant')
    .description(
      "set an artifact's text or thread for one platform: your own parts, a text to split, or neither to add the platform from the artifact's text (putArtifactVariant)",
    )
    .argument('<artifact>', 'artifact id')
    .addArgument(new Argument('<platform>', 'the platform').choices(TARGETS))
    .option('--text <text>', 'a text for this platform, split into a thread here if it does not fit')
    .option('--part <text...>', 'your own split: one post per --part, in order')
    .option('--numbered', 'number the parts of a thread (" 1/3"), counted in the limit')
    .action(
      action(async (cli, id, platform, o) => {
        if (o.text !== undefined && o.part) throw new CliError('give --text or --part, not both.', EXIT.usage);
        const body = { ...(o.text !== undefined ? { text: o.text } : {}), ...(o.part ? { parts: o.part } : {}), ...(o.numbered ? { numbered: true } : {}) };
        const v = await unwrap(cli.client().PUT('/api/agent/v1/artifacts/{id}/variants/{platform}', { params: { path: { id, platform } }, body }));
        if (cli.json) return printJson(v);
        const a = v.publishable ? await unwrap(cli.client().GET('/api/agent/v1/artifacts/{id}', { params: { path: { id } } })) : null;
        io.stdout.write(`${variantPreview(v, [], a?.destinations ?? [], a ? await defaultsFor(cli, a, [v]) : null)}\n`);
      }),
    );

  keyOption(
    artifacts
      .command('mark-published')
      .description('record a post you made by hand on x, linkedin or threads, with its address (markArtifactPublished)')
      .argument('<artifact>', 'artifact id')
      .addOption(new Option('--platform <platform>', 'where you posted it').choices(['x', 'linkedin', 'threads'] as const).makeOptionMandatory())
      .requiredOption('--url <url>', 'the address of the post (https://…)')
      .option('--handle <handle>', 'the account you posted as'),
  ).action(
    action(async (cli, id, o) => {
      const body = { platform: o.platform, url: o.url, ...(o.handle ? { handle: o.handle } : {}), idempotency_key: o.idempotencyKey };
      await printArtifact(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/{id}/mark-published', { params: { path: { id } }, body })));
    }),
  );

  artifacts
    .command('unschedule')
    .description('take a scheduled artifact back to ready and cancel its publish run (unscheduleArtifact)')
    .argument('<artifact>', 'artifact id')
    .action(
      action(async (cli, id) => {
        await printArtifact(cli, await unwrap(cli.client().DELETE('/api/agent/v1/artifacts/{id}/schedule', { params: { path: { id } } })));
      }),
    );

  const schedule = artifacts.command('schedule').description('what is scheduled to be published');
  schedule
    .command('list')
    .description("list a pipeline's scheduled artifacts, soonest first, every page (listPipelineSchedule)")
    .argument('<pipeline>', 'pipeline id')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .action(
      action(async (cli, id, o) => {
        // Every page (a schedule is read whole, to see what is due): next_cursor followed to the end.
        const init = { params: { path: { id }, query: { limit: limitOf(o.limit) } } };
        const data: Schemas['Artifact'][] = [];
        for await (const a of cli.client().paginate('/api/agent/v1/pipelines/{id}/schedule', init)) data.push(a);
        if (cli.json) return printJson({ pipeline_id: id, data });
        if (!data.length) return note(`Nothing is scheduled in ${id}.`);
        const now = new Date();
        const rows = data.map((a) => ({ a, due: a.schedule ? whenOf(a.schedule, now) : null }));
        printTable(
          ['due (UTC)', `here (${localZone()})`, 'as given', 'in', 'artifact', 'text'],
          rows.map(({ a, due }) => [due?.utc ?? '', due?.here ?? '', due?.given ?? '', due?.in ?? '', a.id, truncate(a.text.replace(/\s+/g, ' '), 50)]),
        );
      }),
    );
}

/** The terminal's time zone (TZ, else the system's). */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** `2027-12-01 09:30` and the zone's abbreviation or offset (`CET`, `GMT+5:30`), in `timeZone`. */
function wallClock(at: Date, timeZone: string): string {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const seconds = at.getUTCSeconds() ? `:${String(at.getUTCSeconds()).padStart(2, '0')}` : '';
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}${seconds} ${p.timeZoneName}`;
}

/** How long until `at`, roughly (`2 d 3 h`, `45 min`, `now`). */
function until(at: Date, now: Date): string {
  const min = Math.round((at.getTime() - now.getTime()) / 60_000);
  if (min <= 0) return 'now';
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const m = min % 60;
  return [d && `${d} d`, h && `${h} h`, !d && m && `${m} min`].filter(Boolean).join(' ');
}

/**
 * A schedule as people read it: the instant in UTC (to the minute), the same instant on this
 * terminal's clock, the time as it was given (a local time in its zone, shown in that zone), and how long until it.
 */
export function whenOf(s: NonNullable<Schemas['Artifact']['schedule']>, now: Date) {
  const at = new Date(s.at);
  const zone = localZone();
  return {
    utc: wallClock(at, 'UTC'),
    zone,
    here: wallClock(at, zone),
    given: s.local_time && s.time_zone ? `${wallClock(at, s.time_zone)} (${s.time_zone})` : '-',
    in: until(at, now),
  };
}

/** Each destination with its state, and its parts already live, one line each (a thread's posts in order). */
function printThread(cli: Cli, a: Schemas['Artifact']) {
  if (cli.json) return;
  for (const d of a.destinations) {
    note(destinationLine(d));
    for (const p of d.parts) note(`  part ${p.position}: ${p.url ?? p.external_id}`);
  }
}
