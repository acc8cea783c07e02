// Calendar: a week or a month of what is scheduled (GET /calendar), across every pipeline and
// destination, in the person's time zone; filtered by destination; reschedule or unschedule from
// it. An entry moves to another day by dragging it there, or from the keyboard (Alt+Arrow keys on
// the entry, or its Move buttons), keeping its time of day in the person's time zone: the same
// call as the draft page's Schedule form (POST /artifacts/{id}/publish with `local_time` and
// `time_zone`, which the server resolves), announced in a live region.
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { describeError, Empty, ErrorNote, fmtUtc, newKey, useLoad, UserText, type Client } from '../ui.js';
import { Schedule } from './draft.js';

type Artifact = Schemas['Artifact'];

const dayKey = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const timeLabel = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const monthLabel = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const two = (n: number) => String(n).padStart(2, '0');

/** The same time of day as `at`, in the person's time zone, on `day` (a local date): `local_time` for the server to resolve. */
export function sameTimeOn(at: string, day: Date): string {
  const t = new Date(at);
  return `${dayKey(day)}T${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
}

/** The local date `days` days after the local date of `at` (built from calendar fields: a clock change keeps it one day). */
const dayAfter = (at: string, days: number) => {
  const t = new Date(at);
  return new Date(t.getFullYear(), t.getMonth(), t.getDate() + days);
};

const NO_DESTINATION = 'none';
/** The filter's keys of an artifact's destinations (`platform handle`); `none` while none is chosen. */
const destinationKeys = (a: Artifact): string[] =>
  a.destinations.length ? a.destinations.map((d) => (d.handle ? `${d.platform} ${d.handle}` : d.platform)) : [NO_DESTINATION];

/** The days shown: the week (Monday first) or the month around `anchor`, in local time. */
function daysOf(mode: 'week' | 'month', anchor: Date): Date[] {
  const start = new Date(anchor.getFullYear(), anchor.getMonth(), mode === 'month' ? 1 : anchor.getDate());
  if (mode === 'week') start.setDate(start.getDate() - ((start.getDay() + 6) % 7));
  const n = mode === 'week' ? 7 : new Date(anchor.getFullYear(), anchor.getMonth() + 1, 0).getDate();
  // Dates built from calendar fields (not by adding 24 h): a day with a clock change stays one day.
  return Array.from({ length: n }, (_, i) => new Date(start.getFullYear(), start.getMonth(), start.getDate() + i));
}

/** Where it goes: its destinations (platform and handle); its variants' platforms only when none is chosen yet. */
const destinationsOf = (a: Artifact) =>
  a.destinations.length
    ? a.destinations.map((d) => (d.handle ? `${d.platform} ${d.handle}` : d.platform)).join(', ')
    : a.variants.map((v) => v.platform).join(', ');

type MoveTo = (a: Artifact, day: Date) => Promise<void>;

const ARROWS: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };

function Entry(props: { client: Client; a: Artifact; onChange: () => void; moveTo: MoveTo }) {
  const { a } = props;
  const [open, setOpen] = useState(false);
  const [moving, setMoving] = useState(false);
  const by = (days: number) => void props.moveTo(a, dayAfter(a.schedule!.at, days));
  const [error, setError] = useState<unknown>(null);
  const unschedule = async () => {
    try {
      await unwrap(props.client.DELETE('/api/agent/v1/artifacts/{id}/schedule', { params: { path: { id: a.id } } }));
      props.onChange();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <li
      class="entry"
      data-entry={a.id}
      draggable
      onDragStart={(e) => {
        e.dataTransfer?.setData('text/plain', a.id);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
      }}
      onKeyDown={(e) => {
        // Alt+Left/Right: a day earlier or later; Alt+Up/Down: a week (the time of day kept).
        const days = e.altKey ? ARROWS[e.key] : undefined;
        if (days === undefined) return;
        e.preventDefault();
        by(days);
      }}
      aria-keyshortcuts="Alt+ArrowLeft Alt+ArrowRight Alt+ArrowUp Alt+ArrowDown"
    >
      <time dateTime={a.schedule!.at} title={fmtUtc(a.schedule!.at)}>
        {timeLabel.format(new Date(a.schedule!.at))}
      </time>{' '}
      <a href={`#/drafts/${a.id}`}>
        <UserText text={a.text.slice(0, 80) || a.id} />
      </a>{' '}
      <span class="muted">{destinationsOf(a)}</span>
      <span class="actions">
        <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
          Reschedule
        </button>
        <button type="button" class="link" aria-expanded={moving} onClick={() => setMoving(!moving)}>
          Move
        </button>
        <button type="button" class="link" onClick={() => void unschedule()}>
          Unschedule
        </button>
      </span>
      {moving ? (
        <span class="move" role="group" aria-label="Move to another day, at the same time">
          <button type="button" class="link" onClick={() => by(-1)}>
            A day earlier
          </button>
          <button type="button" class="link" onClick={() => by(1)}>
            A day later
          </button>
          <button type="button" class="link" onClick={() => by(7)}>
            A week later
          </button>
        </span>
      ) : null}
      {open ? (
        <Schedule
          client={props.client}
          artifact={a}
          onDone={() => {
            setOpen(false);
            props.onChange();
          }}
        />
      ) : null}
      <ErrorNote error={error} />
    </li>
  );
}

export function CalendarView(props: { client: Client }) {
  const { client } = props;
  const [mode, setMode] = useState<'week' | 'month'>('week');
  const [anchor, setAnchor] = useState(() => new Date());
  const days = daysOf(mode, anchor);
  // The workspace's calendar for the days shown, from local midnight to local midnight (a week
  // or a month: within the 92 days one call may span), every page.
  const from = days[0]!.toISOString();
  const to = new Date(days.at(-1)!.getFullYear(), days.at(-1)!.getMonth(), days.at(-1)!.getDate() + 1).toISOString();
  const load = useLoad(() => client.paginate('/api/agent/v1/calendar', { params: { query: { from, to, limit: 100 } } }).toArray({ limit: 10_000 }), [from, to]);
  const [hidden, setHidden] = useState<Set<string>>(() => new Set());
  const [announce, setAnnounce] = useState('');
  const [moveError, setMoveError] = useState<unknown>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  // The destinations of what is scheduled in these days, for the filter (every one shown at first).
  const destinations = [...new Set((load.data ?? []).flatMap(destinationKeys))].sort();
  const shown = (load.data ?? []).filter((a) => destinationKeys(a).some((k) => !hidden.has(k)));
  const moveTo: MoveTo = async (a, day) => {
    const text = a.text.slice(0, 40) || a.id;
    const localTime = sameTimeOn(a.schedule!.at, day);
    setMoveError(null);
    setAnnounce(`Moving “${text}” to ${dayLabel.format(day)}…`);
    try {
      await unwrap(
        client.POST('/api/agent/v1/artifacts/{id}/publish', {
          params: { path: { id: a.id } },
          body: { idempotency_key: newKey('move'), local_time: localTime, time_zone: localZone },
        }),
      );
      setAnnounce(`Moved “${text}” to ${dayLabel.format(day)}, ${localTime.slice(11, 16)}.`);
      setFocusId(a.id);
      load.reload();
    } catch (err) {
      setAnnounce(`Not moved: ${describeError(err)}`);
      setMoveError(err);
    }
  };
  // After a move, the focus follows the entry to its new day (when that day is shown).
  useEffect(() => {
    if (!focusId || load.loading) return;
    (document.querySelector(`[data-entry="${focusId}"] a`) as HTMLElement | null)?.focus();
    setFocusId(null);
  }, [load.data, load.loading]);
  const byDay = new Map<string, Artifact[]>();
  for (const a of shown) {
    const k = dayKey(new Date(a.schedule!.at));
    byDay.set(k, [...(byDay.get(k) ?? []), a]);
  }
  const move = (dir: number) =>
    setAnchor(
      mode === 'week'
        ? new Date(anchor.getFullYear(), anchor.getMonth(), anchor.getDate() + 7 * dir)
        : new Date(anchor.getFullYear(), anchor.getMonth() + dir, 1),
    );
  return (
    <section aria-labelledby="calendar-title">
      <h1 id="calendar-title">Calendar</h1>
      <div class="toolbar" role="group" aria-label="Period">
        <button type="button" aria-pressed={mode === 'week'} onClick={() => setMode('week')}>
          Week
        </button>
        <button type="button" aria-pressed={mode === 'month'} onClick={() => setMode('month')}>
          Month
        </button>
        <button type="button" onClick={() => move(-1)}>
          Previous
        </button>
        <button type="button" onClick={() => setAnchor(new Date())}>
          Today
        </button>
        <button type="button" onClick={() => move(1)}>
          Next
        </button>
        <span class="muted">
          {mode === 'month' ? monthLabel.format(anchor) : `${dayLabel.format(days[0]!)} – ${dayLabel.format(days[6]!)}`} · times in{' '}
          {Intl.DateTimeFormat().resolvedOptions().timeZone}
        </span>
      </div>
      {destinations.length ? (
        <fieldset class="filter">
          <legend>Destinations</legend>
          {destinations.map((k) => (
            <label key={k} class="check">
              <input
                type="checkbox"
                checked={!hidden.has(k)}
                onChange={(e) => {
                  const next = new Set(hidden);
                  if ((e.target as HTMLInputElement).checked) next.delete(k);
                  else next.add(k);
                  setHidden(next);
                }}
              />{' '}
              {k === NO_DESTINATION ? 'no destination chosen yet' : <UserText text={k} />}
            </label>
          ))}
        </fieldset>
      ) : null}
      <p class="help">Drag an entry to another day to move it there at the same time, or focus it and press Alt+← or Alt+→ (Alt+↑ or Alt+↓ for a week).</p>
      <p class="visually-hidden" aria-live="polite" role="status">
        {announce}
      </p>
      <ErrorNote error={load.error} />
      <ErrorNote error={moveError} />
      {load.data && load.data.length === 0 ? <Empty>Nothing is scheduled in these days. Schedule a draft from its page.</Empty> : null}
      {load.data && load.data.length > 0 && shown.length === 0 ? <Empty>Nothing scheduled for the destinations checked.</Empty> : null}
      <ol class={`calendar ${mode}`}>
        {days.map((d) => {
          const items = byDay.get(dayKey(d)) ?? [];
          return (
            <li
              key={dayKey(d)}
              data-day={dayKey(d)}
              class={`${items.length ? 'day busy' : 'day'}${over === dayKey(d) ? ' over' : ''}`}
              onDragOver={(e) => {
                e.preventDefault();
                if (e.dataTransfer) e.dataTransfer.dropEffect = 'move';
                setOver(dayKey(d));
              }}
              onDragLeave={() => setOver(null)}
              onDrop={(e) => {
                e.preventDefault();
                setOver(null);
                const id = e.dataTransfer?.getData('text/plain');
                const a = (load.data ?? []).find((x) => x.id === id);
                if (a && dayKey(new Date(a.schedule!.at)) !== dayKey(d)) void moveTo(a, d);
              }}
            >
              <h2 class="day-label">{dayLabel.format(d)}</h2>
              {items.length ? (
                <ul>
                  {items.map((a) => (
                    <Entry key={a.id} client={client} a={a} onChange={load.reload} moveTo={moveTo} />
                  ))}
                </ul>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
