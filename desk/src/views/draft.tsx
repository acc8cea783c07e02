// Draft: the text, a preview per destination as the platform shows it (the thread's parts with
// their counted length against the limit, images with their alt text), editing of the parts and
// the alt text with the limits checked as you type (the server's own counting rules,
// server/services/platform-text.ts, bundled), and the actions: approve, schedule, publish now,
// unschedule, discard, re-draft with a style reference; the genealogy as links.
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { AuditList } from './audit.js';
import type { TargetPlatform } from '../../../server/services/platform-text.js';

// The counting rules are the server's own module; it is most of the desk's weight (X's weighted
// count needs twitter-text), so it is a chunk of its own, loaded when an editor opens.
type Rules = typeof import('../../../server/services/platform-text.js');
let rulesLoading: Promise<Rules> | null = null;
function useRules(): Rules | null {
  const [rules, setRules] = useState<Rules | null>(null);
  useEffect(() => {
    rulesLoading ??= import('../../../server/services/platform-text.js');
    void rulesLoading.then(setRules);
  }, []);
  return rules;
}
import { ErrorNote, ExternalLink, fmtDate, fmtUtc, newKey, submitting, useAction, useLoad, UserText, type Client } from '../ui.js';

type Artifact = Schemas['Artifact'];
type Variant = Schemas['PlatformVariant'];

const STATE_LABEL: Record<Schemas['ArtifactState'], string> = {
  draft: 'Being written',
  review: 'In review',
  ready: 'Approved',
  scheduled: 'Scheduled',
  publishing: 'Publishing',
  published: 'Published',
  publish_failed: 'Publish failed',
  discarded: 'Discarded',
};
const ALT_TEXT_MAX = 5000;

/** The platforms' own names, for headings (the API's names stay in labels tests and scripts address). */
export const PLATFORM_NAME: Record<Schemas['TargetPlatform'], string> = {
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  x: 'X',
  linkedin: 'LinkedIn',
  threads: 'Threads',
};
const POSTING: readonly string[] = Object.keys(PLATFORM_NAME);

const DESTINATION_STATE: Record<Schemas['ArtifactDestination']['state'], string> = {
  pending: 'not published yet',
  scheduled: 'scheduled',
  publishing: 'publishing',
  live: 'live',
  failed: 'failed',
};

function PartsEditor(props: { client: Client; artifact: Artifact; variant: Variant; onSaved: (a: Artifact) => void }) {
  const { variant } = props;
  const [parts, setParts] = useState(variant.parts.map((p) => p.text));
  const action = useAction();
  useEffect(() => setParts(variant.parts.map((p) => p.text)), [variant.updated_at]);
  const rules = useRules();
  const platform = variant.platform as TargetPlatform;
  // The first part carries the artifact's content warning (Mastodon's spoiler_text, Bluesky's
  // `CW:` line): counted with it, as the server counts and the platform will.
  const extrasOf = (i: number) => (rules ? rules.extrasOfPart(i, props.artifact.content_warning) : {});
  const problems = parts.map((t, i) => (rules ? rules.postProblem(platform, t, extrasOf(i)) : null));
  const refused = !rules || problems.some((p) => p !== null);
  const save = submitting(action, async () => {
    if (refused) return;
    await unwrap(
      props.client.PUT('/api/agent/v1/artifacts/{id}/variants/{platform}', {
        params: { path: { id: props.artifact.id, platform: variant.platform } },
        body: { parts, numbered: variant.numbered },
      }),
    );
    props.onSaved(await unwrap(props.client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: props.artifact.id } } })));
  });
  return (
    <form class="parts-editor" onSubmit={save} aria-label={`Edit the ${variant.platform} thread`}>
      {parts.map((text, i) => {
        const id = `part-${variant.platform}-${i}`;
        const length = rules ? rules.countLength(platform, text, extrasOf(i)) : null;
        const warned = rules !== null && length !== rules.countLength(platform, text);
        return (
          <div class="part-edit" key={i}>
            <label for={id}>
              Part {i + 1} of {parts.length}
            </label>
            <textarea
              id={id}
              dir="auto"
              rows={4}
              value={text}
              aria-invalid={problems[i] ? 'true' : 'false'}
              aria-describedby={`${id}-count`}
              onInput={(e) => setParts(parts.map((p, j) => (j === i ? (e.target as HTMLTextAreaElement).value : p)))}
            />
            <p id={`${id}-count`} class={problems[i] ? 'count over' : 'count'} aria-live="polite">
              {length ?? '…'} / {variant.limit}
              {warned ? ' (its content warning included)' : ''}
              {problems[i] ? ` — refused: this part ${problems[i]}` : ''}
            </p>
            {parts.length > 1 ? (
              <button type="button" class="link" onClick={() => setParts(parts.filter((_, j) => j !== i))}>
                Remove part {i + 1}
              </button>
            ) : null}
          </div>
        );
      })}
      <p class="actions">
        <button type="button" onClick={() => setParts([...parts, ''])}>
          Add a part
        </button>
        <button type="submit" disabled={refused || action.busy}>
          Save the {variant.platform} thread
        </button>
      </p>
      <ErrorNote error={action.error} />
    </form>
  );
}

function Preview(props: { client: Client; artifact: Artifact; variant: Variant; onSaved: (a: Artifact) => void }) {
  const { variant, artifact } = props;
  const [editing, setEditing] = useState(false);
  const media = artifact.media ?? [];
  const editable = ['review', 'ready', 'publish_failed'].includes(artifact.state);
  return (
    <article class={`preview platform-${variant.platform}`} aria-label={`${variant.platform} preview`}>
      <h3>
        {PLATFORM_NAME[variant.platform]}{' '}
        <span class="muted">
          ({variant.counting.replaceAll('_', ' ')}, limit {variant.limit})
        </span>
        {variant.publishable ? null : <span class="badge">export only</span>}
      </h3>
      {variant.problem ? <p class="error">{variant.problem}</p> : null}
      <ol class="thread">
        {variant.parts.map((part, i) => (
          <li key={i} class="post">
            <UserText text={part.text} block />
            {i === 0 && media.length ? (
              <ul class="media">
                {media.map((m) => (
                  <li key={m.id}>
                    <span class="media-box" role="img" aria-label={m.alt_text ? `Image: ${m.alt_text}` : 'Image without alt text'}>
                      {m.type}
                    </span>
                    <span class={m.alt_text ? 'alt' : 'alt missing'}>{m.alt_text ? <UserText text={`ALT: ${m.alt_text}`} /> : 'No alt text'}</span>
                  </li>
                ))}
              </ul>
            ) : null}
            <p class={part.length > variant.limit ? 'count over' : 'count'}>
              {i + 1}/{variant.parts.length} · {part.length} / {variant.limit}
            </p>
          </li>
        ))}
      </ol>
      {editable ? (
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? 'Close the editor' : `Edit the ${variant.platform} thread`}
        </button>
      ) : null}
      {editing ? <PartsEditor {...props} /> : null}
    </article>
  );
}

/**
 * Where the artifact goes and how it went there: once published (or chosen), each destination with
 * its state, its first post's address and the error of its last attempt; before the first publish,
 * the connected accounts that can post, the pipeline's defaults checked, for "Publish now".
 */
function Destinations(props: { artifact: Artifact; accounts: Schemas['Account'][] | null; chosen: string[]; onChoose: (ids: string[]) => void }) {
  const { artifact: a, accounts, chosen } = props;
  if (a.destinations.length)
    return (
      <section class="destinations" aria-labelledby="destinations-title">
        <h2 id="destinations-title">Destinations</h2>
        <ul class="cards">
          {a.destinations.map((d) => (
            <li key={d.destination} class={`card platform-${d.platform}`} data-platform={d.platform}>
              <p>
                {PLATFORM_NAME[d.platform]} <UserText text={d.handle ?? ''} /> <span class={`pill dest-${d.state}`}>{DESTINATION_STATE[d.state]}</span>
                {d.manual ? ' (posted by hand)' : ''}
              </p>
              {d.url ? (
                <p>
                  Post: <ExternalLink href={d.url}>{d.url}</ExternalLink>
                  {d.parts.length > 1 ? ` (a thread of ${d.parts.length})` : ''}
                </p>
              ) : null}
              {d.error ? (
                <p class="error">
                  {d.state === 'failed' ? 'Failed' : 'Retrying'}: <UserText text={d.error.message} />
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    );
  const postable = (accounts ?? []).filter((acc) => POSTING.includes(acc.platform)).sort((p, q) => POSTING.indexOf(p.platform) - POSTING.indexOf(q.platform));
  if (!['review', 'ready', 'publish_failed'].includes(a.state) || !postable.length) return null;
  return (
    <section class="destinations" aria-labelledby="destinations-title">
      <h2 id="destinations-title">Destinations</h2>
      <fieldset>
        <legend>Publish to</legend>
        {postable.map((acc) => (
          <label key={acc.id} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(acc.id)}
              onChange={(e) => props.onChoose((e.target as HTMLInputElement).checked ? [...chosen, acc.id] : chosen.filter((id) => id !== acc.id))}
            />{' '}
            {PLATFORM_NAME[acc.platform as Schemas['TargetPlatform']]} <UserText text={acc.handle} />
            {acc.status === 'active' ? '' : ' (not working: connect it again)'}
          </label>
        ))}
      </fieldset>
    </section>
  );
}

function AltTextEditor(props: { client: Client; artifact: Artifact; onSaved: (a: Artifact) => void }) {
  const media = props.artifact.media ?? [];
  const [alts, setAlts] = useState(media.map((m) => m.alt_text ?? ''));
  const action = useAction();
  if (!media.length) return null;
  const tooLong = alts.some((a) => [...a].length > ALT_TEXT_MAX);
  const save = submitting(action, async () => {
    const r = await unwrap(
      props.client.PUT('/api/agent/v1/artifacts/{id}/media', {
        params: { path: { id: props.artifact.id } },
        body: { media: media.map((m, i) => ({ id: m.id, alt_text: alts[i] || null })) },
      }),
    );
    props.onSaved(r);
  });
  return (
    <form onSubmit={save} class="alt-editor">
      <h2>Alt text</h2>
      {media.map((m, i) => (
        <div key={m.id}>
          <label for={`alt-${i}`}>
            Alt text of {m.type} {i + 1}
          </label>
          <textarea
            id={`alt-${i}`}
            dir="auto"
            rows={2}
            value={alts[i]}
            onInput={(e) => setAlts(alts.map((a, j) => (j === i ? (e.target as HTMLTextAreaElement).value : a)))}
          />
          <p class={[...alts[i]!].length > ALT_TEXT_MAX ? 'count over' : 'count'}>
            {[...alts[i]!].length} / {ALT_TEXT_MAX}
          </p>
        </div>
      ))}
      <button type="submit" disabled={tooLong || action.busy}>
        Save the alt text
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const zones = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [localZone];
  }
})();

export function Schedule(props: { client: Client; artifact: Artifact; destinations?: string[] | null; onDone: (a: Artifact) => void }) {
  const [local, setLocal] = useState('');
  const [zone, setZone] = useState(localZone);
  const action = useAction();
  // The wall-clock time and its zone go to the server as they are: it resolves them (and
  // refuses a time skipped or repeated by a clock change), so the rules are the server's.
  const submit = submitting(action, async () => {
    const r = await unwrap(
      props.client.POST('/api/agent/v1/artifacts/{id}/publish', {
        params: { path: { id: props.artifact.id } },
        body: {
          idempotency_key: newKey('schedule'),
          local_time: local.length === 16 ? `${local}:00` : local,
          time_zone: zone,
          ...(props.destinations?.length ? { destinations: props.destinations } : {}),
        },
      }),
    );
    props.onDone('artifact' in r ? r.artifact : r);
  });
  return (
    <form class="schedule" onSubmit={submit}>
      <h2>Schedule</h2>
      <label for="schedule-at">Date and time</label>
      <input id="schedule-at" type="datetime-local" required value={local} onInput={(e) => setLocal((e.target as HTMLInputElement).value)} />
      <label for="schedule-zone">Time zone</label>
      <select id="schedule-zone" value={zone} onChange={(e) => setZone((e.target as HTMLSelectElement).value)}>
        {zones.map((z) => (
          <option key={z} value={z}>
            {z}
          </option>
        ))}
      </select>
      <button type="submit" disabled={action.busy}>
        {props.artifact.state === 'scheduled' ? 'Reschedule' : 'Schedule'}
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

function Redraft(props: { client: Client; artifact: Artifact }) {
  const [style, setStyle] = useState('');
  const action = useAction();
  const submit = submitting(action, async () => {
    const r = await unwrap(
      props.client.POST('/api/agent/v1/posts/{id}/draft', {
        params: { path: { id: props.artifact.genealogy.source_post_id } },
        body: {
          idempotency_key: newKey('redraft'),
          parent_artifact_id: props.artifact.id,
          ...(style.trim() ? { style_reference: style } : {}),
          targets: props.artifact.variants.map((v) => v.platform),
        },
      }),
    );
    location.hash = `#/drafts/${r.artifact_id}`;
  });
  return (
    <form class="redraft" onSubmit={submit}>
      <h2>Re-draft</h2>
      <label for="style-ref">Style reference (optional)</label>
      <textarea id="style-ref" rows={3} value={style} onInput={(e) => setStyle((e.target as HTMLTextAreaElement).value)} />
      <button type="submit" disabled={action.busy}>
        Re-draft from the same post
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

export function DraftView(props: { client: Client; id: string }) {
  const { client, id } = props;
  const load = useLoad(() => unwrap(client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id } } })), [id]);
  const [artifact, setArtifact] = useState<Artifact | null>(null);
  const action = useAction();
  const { busy } = action;
  useEffect(() => {
    if (load.data) setArtifact(load.data);
  }, [load.data]);
  // The accounts that can post and the pipeline's default destinations, for the first publish.
  const pipelineId = artifact?.pipeline_id;
  const choices = useLoad(async () => {
    if (!pipelineId) return null;
    const [accounts, pipeline] = await Promise.all([
      client.paginate('/api/agent/v1/accounts', { params: { query: { limit: 100 } } }).toArray({ limit: 1000 }),
      unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id: pipelineId } } })),
    ]);
    const defaults = pipeline.destinations.map(
      (d) => d.account_id ?? accounts.find((acc) => acc.platform === d.platform && acc.handle === d.handle)?.id ?? null,
    );
    return { accounts, defaults: defaults.filter((id): id is string => id !== null) };
  }, [pipelineId]);
  const [chosen, setChosen] = useState<string[] | null>(null);
  // A draft still being written, or a publish under way: looked at again every 2 s until it settles.
  useEffect(() => {
    if (!artifact || !['draft', 'publishing'].includes(artifact.state)) return;
    const t = setTimeout(load.reload, 2000);
    return () => clearTimeout(t);
  }, [artifact]);
  if (load.error && !artifact) return <ErrorNote error={load.error} />;
  if (!artifact) return <p class="loading">Loading the draft…</p>;
  const a = artifact;
  const act = (fn: () => Promise<Artifact>) => action.run(async () => setArtifact(await fn()));
  const path = { params: { path: { id: a.id } } };
  const transition = (to: 'ready' | 'discarded' | 'review') =>
    act(() => unwrap(client.POST('/api/agent/v1/artifacts/{id}/transition', { ...path, body: { to, idempotency_key: newKey(to) } })));
  // The first publish (or schedule) goes to the destinations checked; after that, publishing resumes the artifact's own.
  const picked = a.destinations.length ? null : (chosen ?? choices.data?.defaults ?? null);
  const publishNow = () =>
    act(async () => {
      const r = await unwrap(
        client.POST('/api/agent/v1/artifacts/{id}/publish', {
          ...path,
          body: { idempotency_key: newKey('publish'), ...(picked?.length ? { destinations: picked } : {}) },
        }),
      );
      return 'artifact' in r ? r.artifact : r;
    });
  const unschedule = () => act(() => unwrap(client.DELETE('/api/agent/v1/artifacts/{id}/schedule', path)));
  const g = a.genealogy;
  return (
    <section aria-labelledby="draft-title">
      <h1 id="draft-title">Draft</h1>
      <p class="meta">
        <span class={`badge state-${a.state}`}>{STATE_LABEL[a.state]}</span> · written {fmtDate(a.created_at)} · updated {fmtDate(a.updated_at)}
        {a.approved_at ? ` · approved ${fmtDate(a.approved_at)} by ${a.approved_by ?? 'someone'}` : ''}
      </p>
      {a.schedule ? (
        <p class="schedule-at">
          Goes out <strong>{fmtDate(a.schedule.at)}</strong> your time ({fmtUtc(a.schedule.at)}
          {a.schedule.time_zone ? `; set as ${a.schedule.local_time ?? ''} ${a.schedule.time_zone}` : ''}).
        </p>
      ) : null}
      {a.published_url ? (
        <p>
          Published: <ExternalLink href={a.published_url}>{a.published_url}</ExternalLink>
        </p>
      ) : null}
      {a.publish_error ? (
        <p class="error">
          Publishing failed: <UserText text={a.publish_error.message} />
        </p>
      ) : null}
      {a.state === 'draft' ? <p class="loading">The draft is being written; this page updates when it is ready.</p> : null}
      <Destinations artifact={a} accounts={choices.data?.accounts ?? null} chosen={picked ?? []} onChoose={setChosen} />
      <div class="user-text draft-text" dir="auto">
        {a.text}
      </div>
      <div class="actions" role="group" aria-label="Actions">
        {a.state === 'review' ? (
          <button type="button" disabled={busy} onClick={() => void transition('ready')}>
            Approve
          </button>
        ) : null}
        {['review', 'ready', 'publish_failed', 'scheduled'].includes(a.state) ? (
          <button type="button" disabled={busy} onClick={() => void publishNow()}>
            Publish now
          </button>
        ) : null}
        {a.state === 'scheduled' ? (
          <button type="button" disabled={busy} onClick={() => void unschedule()}>
            Unschedule
          </button>
        ) : null}
        {['review', 'ready', 'publish_failed'].includes(a.state) ? (
          <button type="button" class="danger" disabled={busy} onClick={() => void transition('discarded')}>
            Discard
          </button>
        ) : null}
      </div>
      <ErrorNote error={action.error} />
      {a.media_issues?.length ? (
        <ul class="warnings">
          {a.media_issues.map((m) => (
            <li key={m.media_id}>{m.message}</li>
          ))}
        </ul>
      ) : null}
      <h2>Previews</h2>
      {a.variants.length === 0 ? <p class="empty">No platform variant yet.</p> : null}
      <div class="previews">
        {a.variants.map((v) => (
          <Preview key={v.platform} client={client} artifact={a} variant={v} onSaved={setArtifact} />
        ))}
      </div>
      <AltTextEditor client={client} artifact={a} onSaved={setArtifact} />
      {['review', 'ready', 'scheduled', 'publish_failed'].includes(a.state) ? (
        <Schedule client={client} artifact={a} destinations={picked} onDone={setArtifact} />
      ) : null}
      {a.state !== 'draft' ? <Redraft client={client} artifact={a} /> : null}
      <h2>Genealogy</h2>
      <ul class="genealogy">
        <li>
          Written from post <code>{g.source_post_id}</code> (<a href={`#/sources/${a.pipeline_id}`}>the pipeline's sources</a>)
        </li>
        <li>Generation {g.generation}</li>
        {g.parent_artifact_id ? (
          <li>
            Parent: <a href={`#/drafts/${g.parent_artifact_id}`}>{g.parent_artifact_id}</a>
          </li>
        ) : null}
        {g.ancestors.length > 1 ? (
          <li>
            Ancestors:{' '}
            {g.ancestors.map((x) => (
              <a key={x} href={`#/drafts/${x}`} class="chip">
                {x}
              </a>
            ))}
          </li>
        ) : null}
      </ul>
      <h2>History</h2>
      <AuditList client={client} subjectId={a.id} limit={50} version={`${a.state} ${a.updated_at}`} />
    </section>
  );
}
