// The review desk: sign-in, then the views, routed on the URL fragment (`#/drafts/art_…`) so that
// every view has an address a person can share and reload. docs/desk.md describes it.
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clientFor, exchangeCode, forgetSession, keepSession, signInCode, signOut, storedSession, type DeskSession } from './session.js';
import type { Client } from './ui.js';
import { ActivityView } from './views/activity.js';
import { AccountsView } from './views/accounts.js';
import { CalendarView } from './views/calendar.js';
import { DraftView } from './views/draft.js';
import { ImportsView } from './views/imports.js';
import { InboxView } from './views/inbox.js';
import { RunsView } from './views/runs.js';
import { SourcesView } from './views/sources.js';

interface Route {
  view: 'inbox' | 'draft' | 'sources' | 'imports' | 'runs' | 'accounts' | 'activity' | 'calendar';
  id?: string;
}

const NAV: Array<{ view: Route['view']; label: string; href: string }> = [
  { view: 'inbox', label: 'Inbox', href: '#/inbox' },
  { view: 'sources', label: 'Sources', href: '#/sources' },
  { view: 'imports', label: 'Imports', href: '#/imports' },
  { view: 'runs', label: 'Runs', href: '#/runs' },
  { view: 'calendar', label: 'Calendar', href: '#/calendar' },
  { view: 'accounts', label: 'Accounts', href: '#/accounts' },
  { view: 'activity', label: 'Activity', href: '#/activity' },
];

export function parseRoute(hash: string): Route {
  const [, view = 'inbox', id] = /^#\/([a-z]+)(?:\/([A-Za-z0-9_-]+))?/.exec(hash) ?? [];
  if (view === 'drafts' && id) return { view: 'draft', id };
  if (view === 'sources') return { view: 'sources', id };
  if (view === 'imports') return { view: 'imports', id };
  if (view === 'runs' || view === 'accounts' || view === 'activity' || view === 'calendar') return { view };
  return { view: 'inbox' };
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** The page without a session: a person signs in with a one-time link, never with an agent's token. */
function SignIn(props: { notice: string | null }) {
  return (
    <main id="main" class="sign-in">
      <h1>Review desk</h1>
      <p>
        Open the one-time sign-in link that <code>npx cpa desk</code> prints (on a desktop, <code>npm start</code> prints one too): it signs you in with a
        session of your own, in this browser tab only.
      </p>
      <p class="help">
        A person already signed in can make a link for you; so can anyone with a token that holds the <code>admin</code> scope. Agents' tokens do not sign in
        here.
      </p>
      {props.notice ? (
        <p class="error" role="alert">
          {props.notice}
        </p>
      ) : null}
    </main>
  );
}

function Shell(props: { client: Client; person: string; onSignOut: () => void }) {
  const route = parseRoute(useHash());
  const navigated = useRef(false);
  useEffect(() => {
    const label = route.view === 'draft' ? 'Draft' : (NAV.find((n) => n.view === route.view)?.label ?? 'Inbox');
    document.title = `${label} · Review desk`;
    // After a navigation the focus moves to the new view (a screen reader reads it); on the first
    // screen it stays at the top of the page, where Tab reaches "Skip to content" first.
    if (navigated.current) document.getElementById('main')?.focus();
    navigated.current = true;
  }, [route.view, route.id]);
  const { client } = props;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Review desk</span>
        <nav aria-label="Views">
          <ul>
            {NAV.map((n) => (
              <li key={n.view}>
                <a href={n.href} aria-current={route.view === n.view ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          Signed in as <bdi>{props.person}</bdi>
        </span>
        <button type="button" class="link" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === 'inbox' && <InboxView client={client} />}
        {route.view === 'draft' && <DraftView client={client} id={route.id!} />}
        {route.view === 'sources' && <SourcesView client={client} pipelineId={route.id} />}
        {route.view === 'imports' && <ImportsView client={client} id={route.id} />}
        {route.view === 'runs' && <RunsView client={client} />}
        {route.view === 'accounts' && <AccountsView client={client} />}
        {route.view === 'activity' && <ActivityView client={client} />}
        {route.view === 'calendar' && <CalendarView client={client} />}
      </main>
    </>
  );
}

const ENDED = 'Your session has ended (unused for 12 hours, signed out, or revoked). Sign in again with a new link: `npx cpa desk` prints one.';

function App() {
  const [session, setSession] = useState<DeskSession | null>(storedSession());
  const [notice, setNotice] = useState<string | null>(null);
  const [exchanging, setExchanging] = useState(() => signInCode(location.hash) !== null);
  useEffect(() => {
    // A sign-in link opened in a new tab, or in this one (only the fragment changes: no reload).
    const take = () => {
      const code = signInCode(location.hash);
      if (!code) return;
      setExchanging(true);
      // The code leaves the address bar (and the history) before anything else happens.
      history.replaceState(null, '', `${location.pathname}#/inbox`);
      void exchangeCode(code).then((r) => {
        setExchanging(false);
        if ('token' in r) {
          keepSession(r);
          setNotice(null);
          setSession(r);
        } else setNotice(r.error);
      });
    };
    take();
    addEventListener('hashchange', take);
    return () => removeEventListener('hashchange', take);
  }, []);
  // Any 401 means the session ended: back to the sign-in page, saying why.
  const ended = useCallback(() => {
    forgetSession();
    setSession(null);
    setNotice(ENDED);
  }, []);
  const client = useMemo(() => (session ? clientFor(session.token, ended) : null), [session, ended]);
  if (exchanging) return <p class="loading">Signing in…</p>;
  if (!client || !session) return <SignIn notice={notice} />;
  return (
    <Shell
      client={client}
      person={session.name}
      onSignOut={() => {
        void signOut(session).then(() => {
          setSession(null);
          setNotice('Signed out: this session no longer works anywhere.');
        });
      }}
    />
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the "Loading…" line of index.html
render(<App />, root);
