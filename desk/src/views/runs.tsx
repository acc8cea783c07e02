// Runs: the workspace's long-running work (GET /runs), what needs the person first: failed runs
// and runs waiting to try again, then those running, then the rest (waiting their turn, done).
// Each with its kind, what it works for (the draft, the pipeline's posts), its error in words meant for a
// person, its attempts and times. The list follows the event stream (the typed client's
// followEvents): an event (an ingest completed, a draft written, a publish done or failed) loads
// the runs again; there is no polling.
import { useEffect, useState } from 'preact/hooks';
import { followEvents, unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { Empty, ErrorNote, fmtDate, fmtNumber, fmtUtc, useLoad, type Client } from '../ui.js';

type Run = Schemas['Run'];
type RunError = NonNullable<Run['last_error']>;

const KINDS: Record<Run['kind'], string> = {
  ingest: 'Ingest',
  draft: 'Draft',
  regenerate_variant: 'Re-draft of a variant',
  refresh_source: 'Refresh of a source',
  publish: 'Publish',
};

/** What went wrong, for a person: a sentence by the error's code, then the service's own words. */
const CAUSES: Record<string, string> = {
  backend_unavailable: 'The platform, site or model did not answer as expected; it is tried again a few times.',
  credential_dead: 'The account stopped working: connect it again on Accounts.',
  credential_missing: 'An account this work needs is not connected: connect it on Accounts.',
  rate_limited: 'The platform asked to slow down; it is tried again later.',
  validation_failed: 'What was sent was refused as it is: change it and try again.',
  state_conflict: 'Something changed in the meantime (the draft was edited, moved or discarded).',
  not_found: 'What it worked on no longer exists.',
  forbidden: 'The platform or the workspace does not allow it.',
  approval_required: 'The draft needs approving first.',
  internal_error: 'The service failed unexpectedly.',
};
export function personError(e: RunError): string {
  const cause = CAUSES[e.code] ?? 'It did not succeed.';
  const upstream = e.upstream_status ? ` The other side answered HTTP ${e.upstream_status}.` : '';
  return `${cause}${upstream} Details: ${e.message}`;
}

type Group = 'attention' | 'running' | 'rest';
const groupOf = (r: Run): Group => (r.status === 'failed' || r.retrying ? 'attention' : r.status === 'running' ? 'running' : 'rest');
const STATES = (r: Run): string =>
  r.retrying ? 'retrying' : ({ queued: 'waiting', running: 'running', succeeded: 'done', failed: 'failed' } as const)[r.status];

/** One status's runs, newest first, a page at a time. */
async function page(client: Client, status: Run['status'], cursor?: string) {
  return unwrap(client.GET('/api/agent/v1/runs', { params: { query: { status: [status], limit: 50, ...(cursor ? { cursor } : {}) } } }));
}

function RunRow(props: { r: Run }) {
  const { r } = props;
  const err = r.status === 'failed' ? r.error : r.last_error;
  return (
    <li class={`run run-${STATES(r)}`} data-run-id={r.run_id} data-run-state={STATES(r)}>
      <div>
        <span class="badge">{STATES(r)}</span> <strong>{KINDS[r.kind]}</strong> {r.artifact_id ? <a href={`#/drafts/${r.artifact_id}`}>the draft</a> : null}
        {r.artifact_id && r.pipeline_id ? ' · ' : null}
        {r.pipeline_id ? <a href={`#/sources/${r.pipeline_id}`}>the pipeline's posts</a> : null}
        {!r.artifact_id && !r.pipeline_id ? <span class="muted">a source of a session</span> : null}
      </div>
      <div class="muted">
        {fmtNumber(r.attempts)} {r.attempts === 1 ? 'attempt' : 'attempts'} · queued <time dateTime={r.created_at}>{fmtDate(r.created_at)}</time>
        {r.started_at ? (
          <>
            {' '}
            · started <time dateTime={r.started_at}>{fmtDate(r.started_at)}</time>
          </>
        ) : null}
        {r.finished_at ? (
          <>
            {' '}
            · ended <time dateTime={r.finished_at}>{fmtDate(r.finished_at)}</time>
          </>
        ) : null}
        {r.next_attempt_at ? (
          <>
            {' '}
            · next try{' '}
            <time dateTime={r.next_attempt_at} title={fmtUtc(r.next_attempt_at)}>
              {fmtDate(r.next_attempt_at)}
            </time>
          </>
        ) : null}
      </div>
      {r.progress && r.status === 'running' ? (
        <div>
          <progress max={r.progress.total || 1} value={r.progress.done} aria-label={`${KINDS[r.kind]} progress`} /> {fmtNumber(r.progress.done)} of{' '}
          {fmtNumber(r.progress.total)}
        </div>
      ) : null}
      {err ? <p class="error">{personError(err)}</p> : null}
    </li>
  );
}

export function RunsView(props: { client: Client }) {
  const { client } = props;
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState('Connecting…');
  // The four statuses' first pages; "Load more" follows the cursor of those that have more.
  const load = useLoad(async () => {
    const [failed, queued, running, succeeded] = await Promise.all((['failed', 'queued', 'running', 'succeeded'] as const).map((s) => page(client, s)));
    return { failed: failed!, queued: queued!, running: running!, succeeded: succeeded! };
  }, [version]);
  const [extra, setExtra] = useState<{ failed: Run[]; succeeded: Run[]; cursors: { failed?: string | null; succeeded?: string | null } }>({
    failed: [],
    succeeded: [],
    cursors: {},
  });
  const [moreError, setMoreError] = useState<unknown>(null);
  useEffect(() => setExtra({ failed: [], succeeded: [], cursors: {} }), [load.data]);
  useEffect(() => {
    // Live: any event of the workspace may mean a run moved on; load the runs again (at most every 500 ms).
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      try {
        for await (const _ of followEvents(client, {
          signal: abort.signal,
          onOpen: () => setLive('Live: the list follows the event stream'),
          onReconnect: ({ delayMs }) => setLive(`Connection lost; reconnecting in ${Math.round(delayMs / 1000)} s`),
        })) {
          clearTimeout(timer);
          timer = setTimeout(() => setVersion((v) => v + 1), 500);
        }
      } catch {
        if (!abort.signal.aborted) setLive('Not live: reload the page to see changes');
      }
    })();
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [client]);
  const d = load.data;
  const more = async (status: 'failed' | 'succeeded') => {
    const cursor = extra.cursors[status] === undefined ? d![status].next_cursor : extra.cursors[status];
    if (!cursor) return;
    try {
      const r = await page(client, status, cursor);
      setExtra((x) => ({ ...x, [status]: [...x[status], ...r.data], cursors: { ...x.cursors, [status]: r.next_cursor } }));
    } catch (err) {
      setMoreError(err);
    }
  };
  const hasMore = (status: 'failed' | 'succeeded') => (extra.cursors[status] === undefined ? Boolean(d?.[status].next_cursor) : Boolean(extra.cursors[status]));
  const all = d ? [...d.failed.data, ...extra.failed, ...d.queued.data, ...d.running.data, ...d.succeeded.data, ...extra.succeeded] : [];
  const groups: Array<{ key: Group; title: string; runs: Run[] }> = [
    { key: 'attention', title: 'Failed or trying again', runs: all.filter((r) => groupOf(r) === 'attention') },
    { key: 'running', title: 'Running', runs: all.filter((r) => groupOf(r) === 'running') },
    { key: 'rest', title: 'Waiting and done', runs: all.filter((r) => groupOf(r) === 'rest') },
  ];
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <p>Long work the service does for the workspace: ingests, drafts, refreshes and publishes. What needs you comes first.</p>
      <p role="status" class="muted">
        {live}
      </p>
      <ErrorNote error={load.error} />
      {d && all.length === 0 ? <Empty>No run yet: ingest an import or draft a post, and its run shows here.</Empty> : null}
      {d
        ? groups.map((g) =>
            g.runs.length ? (
              <section key={g.key} aria-labelledby={`runs-${g.key}`} class="run-group">
                <h2 id={`runs-${g.key}`}>
                  {g.title} ({fmtNumber(g.runs.length)})
                </h2>
                <ol class="runs">
                  {g.runs.map((r) => (
                    <RunRow key={r.run_id} r={r} />
                  ))}
                </ol>
                {g.key === 'attention' && hasMore('failed') ? (
                  <button type="button" onClick={() => void more('failed')}>
                    More failed runs
                  </button>
                ) : null}
                {g.key === 'rest' && hasMore('succeeded') ? (
                  <button type="button" onClick={() => void more('succeeded')}>
                    More finished runs
                  </button>
                ) : null}
              </section>
            ) : null,
          )
        : null}
      <ErrorNote error={moreError} />
    </section>
  );
}
