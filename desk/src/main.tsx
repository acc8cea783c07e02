// The review desk: sign-in, then the views, routed on the URL fragment (`#/drafts/art_…`) so that
// every view has an address a person can share and reload. docs/desk.md describes it.
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clientFor, exchangeCode, isToken, keepToken, signInCode, signOut, storedToken } from './session.js';
import type { Client } from './ui.js';
import { ActivityView } from './views/activity.js';
import { AccountsView } from './views/accounts.js';
import { CalendarView } from './views/calendar.js';
import { DraftView } from './views/draft.js';
import { ImportsView } from './views/imports.js';
import { InboxView } from './views/inbox.js';
import { SourcesView } from './views/sources.js';

interface Route {
  view: 'inbox' | 'draft' | 'sources' | 'imports' | 'accounts' | 'activity' | 'calendar';
  id?: string;
}

const NAV: Array<{ view: Route['view']; label: string; href: string }> = [
  { view: 'inbox', label: 'Inbox', href: '#/inbox' },
  { view: 'sources', label: 'Sources', href: '#/sources' },
  { view: 'imports', label: 'Imports', href: '#/imports' },
  { view: 'calendar', label: 'Calendar', href: '#/calendar' },
  { view: 'accounts', label: 'Accounts', href: '#/accounts' },
  { view: 'activity', label: 'Activity', href: '#/activity' },
];

export function parseRoute(hash: string): Route {
  const [, view = 'inbox', id] = /^#\/([a-z]+)(?:\/([A-Za-z0-9_-]+))?/.exec(hash) ?? [];
  if (view === 'drafts' && id) return { view: 'draft', id };
  if (view === 'sources') return { view: 'sources', id };
  if (view === 'imports' || view === 'accounts' || view === 'activity' || view === 'calendar') return { view };
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

function SignIn(props: { onToken: (t: string) => void; notice: string | null }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(props.notice);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const token = value.trim();
    if (!isToken(token)) return setError('An agent token is 64 lowercase hexadecimal characters, or cpa_ and 64 of them: `npx cpa token` prints one.');
    setBusy(true);
    // Checked with a read that every token may make (the activity of the workspace).
    const { response } = await clientFor(token).GET('/api/sessions/activity', { params: { query: { limit: 1 } } });
    setBusy(false);
    if (response.status === 401) return setError('This token is not valid on this service. `npx cpa token` prints the right one.');
    props.onToken(token);
  };
  return (
    <main id="main" class="sign-in">
      <h1>Review desk</h1>
      <p>Sign in with the workspace's agent token, or open the one-time link that `npm start` or `npx cpa desk` prints.</p>
      <form onSubmit={(e) => void submit(e)}>
        <label for="token">Agent token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          aria-describedby="token-help"
        />
        <p id="token-help" class="help">
          Kept in this browser tab only (session storage): closing the tab signs you out.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </main>
  );
}

function Shell(props: { client: Client; onSignOut: () => void }) {
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
        <button type="button" class="link" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === 'inbox' && <InboxView client={client} />}
        {route.view === 'draft' && <DraftView client={client} id={route.id!} />}
        {route.view === 'sources' && <SourcesView client={client} pipelineId={route.id} />}
        {route.view === 'imports' && <ImportsView client={client} />}
        {route.view === 'accounts' && <AccountsView client={client} />}
        {route.view === 'activity' && <ActivityView client={client} />}
        {route.view === 'calendar' && <CalendarView client={client} />}
      </main>
    </>
  );
}

function App() {
  const [token, setToken] = useState<string | null>(storedToken());
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
          keepToken(r.token);
          setNotice(null);
          setToken(r.token);
        } else setNotice(r.error);
      });
    };
    take();
    addEventListener('hashchange', take);
    return () => removeEventListener('hashchange', take);
  }, []);
  const client = useMemo(() => (token ? clientFor(token) : null), [token]);
  if (exchanging) return <p class="loading">Signing in…</p>;
  if (!client)
    return (
      <SignIn
        notice={notice}
        onToken={(t) => {
          keepToken(t);
          setToken(t);
        }}
      />
    );
  return (
    <Shell
      client={client}
      onSignOut={() => {
        signOut();
        setToken(null);
      }}
    />
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the "Loading…" line of index.html
render(<App />, root);
