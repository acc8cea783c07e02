// Calendar: a week or a month of what is scheduled (GET /calendar), across every pipeline and
// destination, in the person's time zone; reschedule or unschedule from it.
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { Empty, ErrorNote, fmtUtc, useLoad, UserText, type Client } from '../ui.js';
import { Schedule } from './draft.js';

type Artifact = Schemas['Artifact'];

const dayKey = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const timeLabel = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const monthLabel = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });

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

function Entry(props: { client: Client; a: Artifact; onChange: () => void }) {
  const { a } = props;
  const [open, setOpen] = useState(false);
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
    <li class="entry">
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
        <button type="button" class="link" onClick={() => void unschedule()}>
          Unschedule
        </button>
      </span>
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
  const byDay = new Map<string, Artifact[]>();
  for (const a of load.data ?? []) {
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
      <ErrorNote error={load.error} />
      {load.data && load.data.length === 0 ? <Empty>Nothing is scheduled in these days. Schedule a draft from its page.</Empty> : null}
      <ol class={`calendar ${mode}`}>
        {days.map((d) => {
          const items = byDay.get(dayKey(d)) ?? [];
          return (
            <li key={dayKey(d)} class={items.length ? 'day busy' : 'day'}>
              <h2 class="day-label">{dayLabel.format(d)}</h2>
              {items.length ? (
                <ul>
                  {items.map((a) => (
                    <Entry key={a.id} client={client} a={a} onChange={load.reload} />
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
