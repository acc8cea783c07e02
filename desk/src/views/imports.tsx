// Imports: upload an export (drag and drop or the file picker) with a real progress bar
// (XMLHttpRequest's upload progress: fetch cannot report how much of a body was sent), the
// summary of what it holds and leaves out, by reason, then a pipeline on its handle and the
// ingest run's progress, live. Below, every import of the workspace (GET /imports) with its
// summary; `#/imports/<id>` opens one (GET /imports/{id}).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ContentPipelineError, unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { describeError, Empty, ErrorNote, fmtDate, fmtNumber, newKey, useLoad, UserText, type Client } from '../ui.js';
import { storedToken } from '../session.js';

type Import = Schemas['Import'];

const TYPES: Record<string, string> = {
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  json: 'application/json',
  js: 'application/javascript',
  csv: 'text/csv',
};
const contentTypeOf = (file: File) => TYPES[file.name.split('.').pop()?.toLowerCase() ?? ''] ?? (file.type || 'application/octet-stream');

/** POST /imports with the file as the body, reporting the bytes sent. The same public operation the typed client calls. */
function upload(file: File, handle: string, onProgress: (sent: number, total: number) => void): Promise<Import> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const query = new URLSearchParams({ handle, idempotency_key: newKey('import') });
    xhr.open('POST', `/api/agent/v1/imports?${query.toString()}`);
    xhr.setRequestHeader('Authorization', `Bearer ${storedToken() ?? ''}`);
    xhr.setRequestHeader('Content-Type', contentTypeOf(file));
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new TypeError('network'));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: described by the status below
      }
      if (xhr.status === 200 || xhr.status === 201) return resolve(body as Import);
      const headers = new Headers({ 'Content-Type': 'application/json' });
      reject(ContentPipelineError.fromResponse(new Response(null, { status: xhr.status, headers }), body));
    };
    xhr.send(file);
  });
}

/** What was left out, by reason, in words: "replies to other people 3, reposts 2", or "nothing". */
const REASONS: Record<keyof Import['summary']['skipped'], string> = {
  direct_message: 'direct messages',
  followers_only: 'followers-only or protected',
  repost: 'reposts',
  reply: 'replies to other people',
  empty: 'empty',
  unreadable: 'unreadable',
  like: 'likes',
  draft: 'drafts',
  private: 'private',
  trashed: 'in the trash',
  not_a_post: 'not posts',
};
export const leftOut = (skipped: Import['summary']['skipped']): string => {
  const parts = (Object.entries(skipped) as Array<[keyof typeof REASONS, number]>).filter(([, n]) => n > 0);
  return parts.length ? parts.map(([k, n]) => `${REASONS[k] ?? k.replaceAll('_', ' ')} ${fmtNumber(n)}`).join(', ') : 'nothing';
};
const leftOutTotal = (skipped: Import['summary']['skipped']): number => Object.values(skipped).reduce((a, n) => a + n, 0);
const period = (s: Import['summary']) => (s.first_post_at ? `${fmtDate(s.first_post_at)} – ${fmtDate(s.last_post_at)}` : 'no date could be read');
const STATES: Record<Import['status'], string> = { ready: 'ready: its ingest reads it', superseded: 'replaced by a newer export' };

function Summary(props: { imp: Import; title?: string }) {
  const s = props.imp.summary;
  return (
    <section class="summary" aria-labelledby="summary-title">
      <h2 id="summary-title">{props.title ?? 'What the export holds'}</h2>
      <dl>
        <dt>Format</dt>
        <dd>
          {s.format} ({s.container}, {fmtNumber(props.imp.size_bytes)} bytes)
        </dd>
        <dt>Posts to import</dt>
        <dd>{fmtNumber(s.posts)}</dd>
        <dt>By audience</dt>
        <dd>
          {Object.entries(s.by_visibility)
            .map(([k, n]) => `${k} ${fmtNumber(n)}`)
            .join(', ')}
        </dd>
        <dt>Images and media</dt>
        <dd>{fmtNumber(s.media)}</dd>
        <dt>Period</dt>
        <dd>{period(s)}</dd>
        <dt>Left out</dt>
        <dd>{leftOut(s.skipped)}</dd>
        <dt>State</dt>
        <dd>{STATES[props.imp.status]}</dd>
      </dl>
    </section>
  );
}

function IngestProgress(props: { client: Client; runId: string; pipelineId: string }) {
  const [run, setRun] = useState<Schemas['Run'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    const tick = async () => {
      try {
        const r = await unwrap(props.client.GET('/api/agent/v1/runs/{id}', { params: { path: { id: props.runId } } }));
        if (!live) return;
        setRun(r);
        if (r.status === 'queued' || r.status === 'running') setTimeout(() => void tick(), 1000);
      } catch (err) {
        if (live) setError(err);
      }
    };
    void tick();
    return () => {
      live = false;
    };
  }, [props.runId]);
  const p = run?.progress;
  return (
    <section aria-labelledby="ingest-title">
      <h2 id="ingest-title">Ingest</h2>
      <label for="ingest-progress">{run ? `Ingest: ${run.status}` : 'Starting the ingest'}</label>
      <progress id="ingest-progress" max={p?.total || 1} value={run?.status === 'succeeded' ? p?.total || 1 : (p?.done ?? 0)} />
      <p aria-live="polite">{p ? `${fmtNumber(p.done)} of ${fmtNumber(p.total)} posts` : ''}</p>
      {run?.status === 'failed' && run.error ? <p class="error">{run.error.message}</p> : null}
      {run?.status === 'succeeded' ? (
        <p>
          Done. <a href={`#/sources/${props.pipelineId}`}>See the posts</a> or <a href="#/inbox">the inbox</a>.
        </p>
      ) : null}
      <ErrorNote error={error} />
    </section>
  );
}

/** Every import of the workspace, newest first, each with its summary; "Load more" follows the cursor. */
function ImportList(props: { client: Client; version: number }) {
  const [pages, setPages] = useState<{ items: Import[]; next: string | null }>({ items: [], next: null });
  const load = useLoad(() => unwrap(props.client.GET('/api/agent/v1/imports', { params: { query: { limit: 50 } } })), [props.version]);
  const [more, setMore] = useState<unknown>(null);
  useEffect(() => {
    if (load.data) setPages({ items: load.data.data, next: load.data.next_cursor });
  }, [load.data]);
  const loadMore = async () => {
    try {
      const r = await unwrap(props.client.GET('/api/agent/v1/imports', { params: { query: { limit: 50, cursor: pages.next! } } }));
      setPages((p) => ({ items: [...p.items, ...r.data], next: r.next_cursor }));
    } catch (err) {
      setMore(err);
    }
  };
  return (
    <section aria-labelledby="import-list-title">
      <h2 id="import-list-title">Imports of this workspace</h2>
      <ErrorNote error={load.error} />
      {load.data && pages.items.length === 0 ? <Empty>Nothing imported yet: upload an export above.</Empty> : null}
      {pages.items.length ? (
        <table class="imports">
          <thead>
            <tr>
              <th scope="col">Handle</th>
              <th scope="col">Format</th>
              <th scope="col">Taken</th>
              <th scope="col">Left out</th>
              <th scope="col">Period</th>
              <th scope="col">State</th>
              <th scope="col">Uploaded</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((i) => (
              <tr key={i.id} data-import-id={i.id}>
                <th scope="row">
                  <a href={`#/imports/${i.id}`}>
                    <UserText text={i.handle} />
                  </a>
                </th>
                <td>{i.format}</td>
                <td>{fmtNumber(i.summary.posts)} posts</td>
                <td>
                  {fmtNumber(leftOutTotal(i.summary.skipped))}
                  {leftOutTotal(i.summary.skipped) ? <span class="muted"> ({leftOut(i.summary.skipped)})</span> : null}
                </td>
                <td>{period(i.summary)}</td>
                <td>{i.status}</td>
                <td>{fmtDate(i.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {pages.next ? (
        <button type="button" onClick={() => void loadMore()}>
          Load more
        </button>
      ) : null}
      <ErrorNote error={more} />
    </section>
  );
}

/** One import (`#/imports/<id>`): its summary, the files read, its account. */
function ImportDetail(props: { client: Client; id: string }) {
  const load = useLoad(() => unwrap(props.client.GET('/api/agent/v1/imports/{id}', { params: { path: { id: props.id } } })), [props.id]);
  const imp = load.data;
  return (
    <section aria-labelledby="import-title">
      <h1 id="import-title">Import {imp ? <UserText text={imp.handle} /> : null}</h1>
      <p>
        <a href="#/imports">All imports</a>
      </p>
      <ErrorNote error={load.error} />
      {imp ? (
        <>
          <p>
            Uploaded {fmtDate(imp.created_at)}; {imp.include_non_public ? 'non-public posts included.' : 'public posts only.'}
          </p>
          <Summary imp={imp} />
          <h2>Files read</h2>
          <ul class="files">
            {imp.summary.files_used.map((f, n) => (
              <li key={n}>{f ? <code class="user-text">{f}</code> : 'the file uploaded'}</li>
            ))}
          </ul>
          {imp.account ? (
            <p>
              Ingested by the archive account <UserText text={imp.account.handle} />: <a href="#/sources">see its posts</a>.
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

export function ImportsView(props: { client: Client; id?: string }) {
  if (props.id) return <ImportDetail client={props.client} id={props.id} />;
  return <ImportUpload client={props.client} />;
}

function ImportUpload(props: { client: Client }) {
  const { client } = props;
  const [uploads, setUploads] = useState(0);
  const [handle, setHandle] = useState('');
  const [intent, setIntent] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [sent, setSent] = useState<{ sent: number; total: number } | null>(null);
  const [imp, setImp] = useState<Import | null>(null);
  const [started, setStarted] = useState<{ pipelineId: string; runId: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [over, setOver] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return setError(new Error('Choose an export file first (drop it on the area, or use the file picker).'));
    if (!handle.trim()) return setError(new Error('Give the account a handle, e.g. my-x.'));
    setError(null);
    setImp(null);
    setStarted(null);
    setSent({ sent: 0, total: file.size });
    try {
      const result = await upload(file, handle.trim(), (s, t) => setSent({ sent: s, total: t }));
      setImp(result);
      setUploads((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const startPipeline = async (e: Event) => {
    e.preventDefault();
    if (!imp) return;
    setError(null);
    try {
      const r = await unwrap(
        client.POST('/api/agent/v1/pipelines/from-intent', {
          body: { handle: imp.handle, intent: intent.trim() || `Posts from ${imp.handle}`, idempotency_key: newKey('pipeline') },
        }),
      );
      setStarted({ pipelineId: r.pipeline_id, runId: r.run_id });
    } catch (err) {
      setError(err);
    }
  };
  const pct = sent && sent.total ? Math.round((sent.sent / sent.total) * 100) : 0;
  return (
    <section aria-labelledby="imports-title">
      <h1 id="imports-title">Imports</h1>
      <p>
        Upload an export as the platform hands it out: the X archive ZIP, the Mastodon archive, the LinkedIn export, or a bare tweets.js, outbox.json or
        Shares.csv.
      </p>
      <form onSubmit={(e) => void submit(e)}>
        <div
          class={over ? 'dropzone over' : 'dropzone'}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            const f = e.dataTransfer?.files[0];
            if (f) setFile(f);
          }}
        >
          <p>{file ? <UserText text={`${file.name} (${fmtNumber(file.size)} bytes)`} /> : 'Drop the export here, or'}</p>
          <label for="import-file">Choose a file</label>
          <input id="import-file" ref={picker} type="file" onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} />
        </div>
        <label for="import-handle">Handle for this account</label>
        <input id="import-handle" value={handle} placeholder="my-x" onInput={(e) => setHandle((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={sent !== null && !imp && !error}>
          Upload
        </button>
      </form>
      {sent ? (
        <div class="upload-progress">
          <label for="upload-progress">Upload</label>
          <progress id="upload-progress" max={100} value={pct} />
          <span aria-live="polite">
            {pct} % ({fmtNumber(sent.sent)} of {fmtNumber(sent.total)} bytes)
          </span>
        </div>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {describeError(error)}
        </p>
      ) : null}
      {imp ? <Summary imp={imp} /> : null}
      {imp && !started ? (
        <form onSubmit={(e) => void startPipeline(e)}>
          <label for="import-intent">What the pipeline is for</label>
          <input
            id="import-intent"
            value={intent}
            placeholder="Weekly posts about our releases"
            onInput={(e) => setIntent((e.target as HTMLInputElement).value)}
          />
          <button type="submit">Ingest the posts</button>
        </form>
      ) : null}
      {started ? <IngestProgress client={client} runId={started.runId} pipelineId={started.pipelineId} /> : null}
      <ImportList client={client} version={uploads} />
    </section>
  );
}
