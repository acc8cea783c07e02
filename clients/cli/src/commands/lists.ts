// `cpa pipelines|artifacts|accounts|imports|runs|tokens|audit list` and `cpa calendar`: the workspace-wide lists.
// One page by default (the next page's command on stderr), `--all` to follow every cursor,
// `--limit`, `--cursor`, `--json [fields]`, and each list's filters; the output is gh's
// (output.ts): a table on a terminal, tab-separated lines when piped.
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ListInit, ListItem, ListPath, Schemas } from '../../../typescript/src/index.js';
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { limitOf } from '../options.js';
import { io } from '../io.js';
import { note, printJson, printTable, stdoutIsTerminal, truncate } from '../output.js';

const ARTIFACT_STATES = ['draft', 'review', 'ready', 'scheduled', 'publishing', 'published', 'publish_failed', 'discarded'] as const;
const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
const RUN_KINDS = ['ingest', 'draft', 'regenerate_variant', 'refresh_source', 'publish'] as const;

/** `--state review,ready` or `--state review --state ready`: the values, each one of `allowed`. */
function valuesOf<T extends string>(flag: string, raw: string[] | undefined, allowed: readonly T[]): T[] | undefined {
  if (!raw?.length) return undefined;
  const values = raw
    .flatMap((r) => r.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  const bad = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (bad.length) throw new CliError(`${flag} takes ${allowed.join(', ')} (got ${bad.join(', ')}).`, EXIT.usage);
  return [...new Set(values)] as T[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
/** A filter of several values: `--state review,ready` or `--state review --state ready`. */
const several = <F extends string>(flag: F, what: string, values: readonly string[]) =>
  new Option(`${flag} <value>` as `${F} <value>`, `only these ${what}, comma-separated or repeated (${values.join(', ')})`).argParser(collect);

/** An instant from the command line: RFC 3339 with an offset, or a date (midnight UTC). */
function instantOf(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = /^\d{4}-\d\d-\d\d$/.test(raw) ? `${raw}T00:00:00Z` : raw;
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:\d\d)$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new CliError(`${flag} takes a date (2027-12-01) or an instant with its offset (2027-12-01T09:30:00+01:00).`, EXIT.usage);
  }
  return value;
}

interface ListSpec<P extends ListPath> {
  /** The list's noun in messages (`pipelines`). */
  noun: string;
  path: P;
  head: string[];
  row: (item: ListItem<P>) => unknown[];
}

/** Prints one page (and how to get the next), or every page with `--all` (progress on stderr). */
async function runList<P extends ListPath>(cli: Cli, spec: ListSpec<P>, init: ListInit<P>, o: { all?: boolean }, again: string) {
  const pager = cli.client().paginate(spec.path, init);
  const items: Array<ListItem<P>> = [];
  let next: string | null = null;
  let n = 0;
  for await (const page of pager.pages()) {
    items.push(...page.data);
    next = page.next_cursor;
    if (!o.all) break;
    if (next) note(`page ${++n}: ${items.length} ${spec.noun} so far`);
  }
  if (cli.json) printJson({ data: items, next_cursor: o.all ? null : next });
  else if (!items.length) note(`No ${spec.noun}.`);
  else printTable(spec.head, items.map(spec.row));
  if (!o.all && next && !cli.json) note(`More: ${again} --cursor ${next}   (or --all)`);
}

/** A `list` command with the options every list takes. */
function listCommand(description: string) {
  return new Command('list')
    .description(description)
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'start at this page (the next_cursor of a previous page)')
    .option('--all', 'follow next_cursor to the last page (progress on stderr)');
}

/** `cpa audit list`: one line per record, its actor named with its kind unless it is a token. */
const AUDIT_LIST: ListSpec<'/api/agent/v1/audit-events'> = {
  noun: 'records',
  path: '/api/agent/v1/audit-events',
  head: ['time (UTC)', 'actor', 'action', 'subject', 'summary'],
  row: (e) => [
    e.created_at.slice(0, 19).replace('T', ' '),
    e.actor.kind === 'agent' ? e.actor.name : `${e.actor.name} (${e.actor.kind})`,
    e.action,
    e.subject?.id ?? '-',
    truncate(e.summary, 60),
  ],
};

const when = (iso: string | null | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');
/** Adds `cmd` under the existing command `name` (`pipelines`, `artifacts`, ...). */
function addTo(program: Command, name: string, cmd: CommandUnknownOpts) {
  const parent = program.commands.find((c) => c.name() === name);
  if (!parent) throw new Error(`no "${name}" command to add "list" to`);
  parent.addCommand(cmd);
}

/** `cpa GROUP list` for a list without filters (pipelines, accounts, imports). */
function plainList<P extends '/api/agent/v1/pipelines' | '/api/agent/v1/accounts' | '/api/agent/v1/imports' | '/api/agent/v1/tokens'>(
  program: Command,
  group: string,
  description: string,
  spec: ListSpec<P>,
) {
  const cmd = listCommand(description);
  cmd.action(
    action(async (cli, o) => {
      const init = { params: { query: { limit: limitOf(o.limit), cursor: o.cursor } } } as ListInit<P>;
      await runList(cli, spec, init, o, `cpa ${group} list`);
    }),
  );
  addTo(program, group, cmd);
}

export function registerListCommands(program: Command) {
  plainList(program, 'pipelines', "list the workspace's pipelines, newest first (listPipelines)", {
    noun: 'pipelines',
    path: '/api/agent/v1/pipelines',
    head: ['id', 'handle', 'intent', 'posts', 'artifacts', 'last run', 'created (UTC)'],
    row: (p) => [
      p.id,
      p.handle,
      truncate(p.intent, 40),
      p.post_count,
      p.artifact_count,
      p.last_run ? `${p.last_run.kind} ${p.last_run.status}` : '-',
      when(p.created_at),
    ],
  });

  const artifacts = listCommand('list artifacts across pipelines, newest first, filtered by pipeline, state, schedule and change time (listArtifacts)')
    .option('--pipeline <id>', "only this pipeline's artifacts")
    .addOption(several('--state', 'states', ARTIFACT_STATES))
    .option('--scheduled-after <time>', 'scheduled at or after this date or instant')
    .option('--scheduled-before <time>', 'scheduled before this date or instant')
    .option('--updated-since <time>', 'changed at or after this date or instant');
  artifacts.action(
    action(async (cli, o) => {
      const spec: ListSpec<'/api/agent/v1/artifacts'> = {
        noun: 'artifacts',
        path: '/api/agent/v1/artifacts',
        head: ['id', 'pipeline', 'state', 'scheduled (UTC)', 'platforms', 'updated (UTC)', 'text'],
        row: (a) => [
          a.id,
          a.pipeline_id,
          a.state,
          when(a.schedule?.at),
          a.variants.map((v) => v.platform).join(' ') || '-',
          when(a.updated_at),
          truncate(a.text, 40),
        ],
      };
      const query = {
        limit: limitOf(o.limit),
        cursor: o.cursor,
        pipeline_id: o.pipeline,
        state: valuesOf('--state', o.state, ARTIFACT_STATES),
        scheduled_after: instantOf('--scheduled-after', o.scheduledAfter),
        scheduled_before: instantOf('--scheduled-before', o.scheduledBefore),
        updated_since: instantOf('--updated-since', o.updatedSince),
      };
      await runList(cli, spec, { params: { query } }, o, 'cpa artifacts list');
    }),
  );
  addTo(program, 'artifacts', artifacts);

  const children = new Command('children')
    .description("list an artifact's re-drafts, oldest first: the genealogy downward (listArtifactChildren)")
    .argument('<artifact>', 'artifact id')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'start at this page (the next_cursor of a previous page)')
    .option('--all', 'follow next_cursor to the last page (progress on stderr)');
  children.action(
    action(async (cli, id, o) => {
      const spec: ListSpec<'/api/agent/v1/artifacts/{id}/children'> = {
        noun: 're-drafts',
        path: '/api/agent/v1/artifacts/{id}/children',
        head: ['id', 'generation', 'state', 'created (UTC)', 'text'],
        row: (a) => [a.id, a.genealogy.generation, a.state, when(a.created_at), truncate(a.text, 50)],
      };
      await runList(cli, spec, { params: { path: { id }, query: { limit: limitOf(o.limit), cursor: o.cursor } } }, o, `cpa artifacts children ${id}`);
    }),
  );
  addTo(program, 'artifacts', children);

  plainList(program, 'accounts', 'list the connected accounts and their health; never a credential (listAccounts)', {
    noun: 'accounts',
    path: '/api/agent/v1/accounts',
    head: ['id', 'platform', 'handle', 'status', 'connected by', 'reconnect by', 'proxy', 'last probed (UTC)', 'last error'],
    row: (a) => [
      a.id,
      a.platform,
      a.handle,
      a.status,
      a.connected_by,
      a.reconnect_by ? when(a.reconnect_by) : '-',
      a.has_proxy ? 'yes' : 'no',
      when(a.last_probed_at),
      truncate(a.last_probe_error ?? '-', 40),
    ],
  });

  plainList(program, 'imports', "list the workspace's imports, newest first (listImports)", {
    noun: 'imports',
    path: '/api/agent/v1/imports',
    head: ['id', 'handle', 'format', 'status', 'posts', 'bytes', 'created (UTC)'],
    row: (i) => [i.id, i.handle, `${i.format} ${i.container}`, i.status, i.summary.posts, i.size_bytes, when(i.created_at)],
  });

  plainList(program, 'tokens', "list the workspace's tokens, newest first, never a secret (listTokens)", {
    noun: 'tokens',
    path: '/api/agent/v1/tokens',
    head: ['id', 'kind', 'name', 'scopes', 'created (UTC)', 'expires (UTC)', 'last used (UTC)', 'revoked (UTC)'],
    row: (t) => [t.id, t.kind, t.name ?? '-', t.scopes.join(','), when(t.created_at), when(t.expires_at), when(t.last_used_at), when(t.revoked_at)],
  });

  const audit = listCommand("list the record of who did what, newest first, by subject (an artifact's history), actor, action and time (listAuditEvents)")
    .option('--subject <id>', "only the records of this subject (art_… gives the artifact's history)")
    .option('--actor <id>', 'only what this token did (tok_…)')
    .option('--action <name>', 'only this action (artifact.approved, token.revoked, …)')
    .option('--since <time>', 'made at or after this date or instant')
    .option('--until <time>', 'made before this date or instant');
  audit.action(
    action(async (cli, o) => {
      const query = {
        limit: limitOf(o.limit),
        cursor: o.cursor,
        subject_id: o.subject,
        actor_id: o.actor,
        action: o.action,
        created_after: instantOf('--since', o.since),
        created_before: instantOf('--until', o.until),
      };
      await runList(cli, AUDIT_LIST, { params: { query } }, o, 'cpa audit list');
    }),
  );
  program.command('audit').description('the record of who did what in the workspace (needs a token with read)').addCommand(audit);

  const runs = listCommand('list runs, newest first, by status, kind and pipeline (listRuns)')
    .addOption(several('--status', 'statuses', RUN_STATUSES))
    .addOption(several('--kind', 'kinds', RUN_KINDS))
    .option('--pipeline <id>', "only this pipeline's runs");
  runs.action(
    action(async (cli, o) => {
      const spec: ListSpec<'/api/agent/v1/runs'> = {
        noun: 'runs',
        path: '/api/agent/v1/runs',
        head: ['id', 'kind', 'status', 'pipeline', 'attempts', 'created (UTC)', 'error'],
        row: (r) => [
          r.run_id,
          r.kind,
          r.retrying ? 'queued (retrying)' : r.status,
          r.pipeline_id ?? '-',
          r.attempts,
          when(r.created_at),
          truncate(r.last_error?.message ?? '-', 40),
        ],
      };
      const query = {
        limit: limitOf(o.limit),
        cursor: o.cursor,
        status: valuesOf('--status', o.status, RUN_STATUSES),
        kind: valuesOf('--kind', o.kind, RUN_KINDS),
        pipeline_id: o.pipeline,
      };
      await runList(cli, spec, { params: { query } }, o, 'cpa runs list');
    }),
  );
  addTo(program, 'runs', runs);

  program
    .command('calendar')
    .description('what is scheduled this week (or from --from, for --days), across pipelines, day by day in your time zone (getCalendar)')
    .option('--from <date>', 'the first day (2027-11-29; default: the Monday of this week)')
    .option('--days <n>', 'how many days, 1 to 92 (default 7)')
    .option('--time-zone <zone>', 'the IANA zone of the days (default: TZ, else the system zone)')
    .action(
      action(async (cli, o) => {
        const zone = o.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
        const days = o.days === undefined ? 7 : Number(o.days);
        if (!Number.isInteger(days) || days < 1 || days > 92) throw new CliError('--days must be a whole number from 1 to 92.', EXIT.usage);
        const Temporal = await temporal();
        const window = calendarWindow(Temporal, zone, o.from, days);
        const client = cli.client();
        const items: Array<Schemas['Artifact']> = [];
        for await (const a of client.paginate('/api/agent/v1/calendar', { params: { query: { from: window.from, to: window.to, limit: 100 } } })) items.push(a);
        if (cli.json) return printJson({ from: window.from, to: window.to, data: items, next_cursor: null });
        printWeek(Temporal, window.days, items, zone);
      }),
    );
}

interface Day {
  /** `2027-11-29` in the zone. */
  date: string;
  /** `Mon 29 Nov`. */
  label: string;
}

type TemporalNs = typeof import('temporal-polyfill').Temporal;

/** Temporal: the runtime's (Node 26), else temporal-polyfill, loaded only by `cpa calendar`. */
async function temporal(): Promise<TemporalNs> {
  return (globalThis as { Temporal?: TemporalNs }).Temporal ?? (await import('temporal-polyfill')).Temporal;
}

/** The instants of midnight of each day from `from` (default: this week's Monday) in `zone`. */
function calendarWindow(Temporal: TemporalNs, zone: string, fromDate: string | undefined, days: number): { from: string; to: string; days: Day[] } {
  let first;
  try {
    const today = Temporal.Now.plainDateISO(zone);
    first = fromDate === undefined ? today.subtract({ days: today.dayOfWeek - 1 }) : Temporal.PlainDate.from(fromDate, { overflow: 'reject' });
  } catch (err) {
    throw new CliError(
      `${fromDate === undefined ? '--time-zone' : '--from'}: ${(err as Error).message}`,
      EXIT.usage,
      '--from takes a date (2027-11-29), --time-zone an IANA zone (Europe/Paris).',
    );
  }
  const list = Array.from({ length: days }, (_, i) => first.add({ days: i }));
  const midnight = (d: typeof first) => d.toZonedDateTime({ timeZone: zone }).toInstant().toString();
  const label = (d: typeof first) => d.toLocaleString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' });
  return { from: midnight(list[0]!), to: midnight(first.add({ days })), days: list.map((d) => ({ date: d.toString(), label: label(d) })) };
}

/**
 * The week view: on a terminal, each day under its heading with its artifacts (time, platforms,
 * id, text), "nothing scheduled" on an empty day; piped, one tab-separated line per artifact
 * (local date, local time, artifact id, pipeline id, platforms, text).
 */
function printWeek(Temporal: TemporalNs, days: Day[], items: Array<Schemas['Artifact']>, zone: string) {
  const rows = items.map((a) => {
    const local = Temporal.Instant.from(a.schedule?.at ?? a.updated_at).toZonedDateTimeISO(zone);
    const time = local.toPlainTime().toString({ smallestUnit: 'minute' });
    return { date: local.toPlainDate().toString(), time, a, platforms: a.variants.map((v) => v.platform).join(' ') || '-' };
  });
  if (!stdoutIsTerminal())
    return printTable(
      [],
      rows.map((r) => [r.date, r.time, r.a.id, r.a.pipeline_id, r.platforms, r.a.text]),
    );
  const out: string[] = [`Scheduled, ${days[0]!.label} – ${days[days.length - 1]!.label} (${zone}): ${items.length}`];
  for (const d of days) {
    out.push('', d.label);
    const today = rows.filter((r) => r.date === d.date);
    if (!today.length) out.push('  nothing scheduled');
    for (const r of today) out.push(`  ${r.time}  ${r.platforms.padEnd(14)} ${r.a.id}  ${truncate(r.a.text, 60)}`);
  }
  io.stdout.write(`${out.join('\n')}\n`);
}
