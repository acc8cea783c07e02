// Accounts: the workspace's accounts with their health (GET /accounts), connect one by signing in
// on its platform (POST /accounts/authorizations, then polling GET /accounts/authorizations/{id}),
// or with a pasted credential, or rotate its credential (connecting the same platform and handle again).
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { Empty, ErrorNote, ExternalLink, fmtDate, newKey, submitting, useAction, useLoad, UserText, type Client } from '../ui.js';

const PLATFORMS: Schemas['Platform'][] = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'rss'];
/** What the handle of a pasted-credential connection looks like, per platform. */
const HANDLE_HINT: Partial<Record<Schemas['Platform'], string>> = {
  rss: '(the feed address)',
  bluesky: '(e.g. ada.bsky.social)',
  x: '(e.g. @ada)',
  linkedin: '(e.g. ada-lovelace)',
  threads: '(e.g. @ada)',
};

export function AccountsView(props: { client: Client }) {
  const [platform, setPlatform] = useState<Schemas['Platform']>('mastodon');
  const [handle, setHandle] = useState('');
  const [secret, setSecret] = useState('');
  const [result, setResult] = useState<Schemas['ConnectAccountResult'] | null>(null);
  const action = useAction();
  const accounts = useLoad(() => props.client.paginate('/api/agent/v1/accounts', { params: { query: { limit: 100 } } }).toArray({ limit: 1000 }), []);
  const rotate = (a: Schemas['Account']) => {
    setPlatform(a.platform);
    setHandle(a.handle);
    document.getElementById('acct-secret')?.focus();
  };
  const submit = submitting(action, async () => {
    const r = await unwrap(
      props.client.POST('/api/agent/v1/accounts/connect', {
        body: { platform, handle: handle.trim(), auth_material: secret, idempotency_key: newKey('connect') },
      }),
    );
    setResult(r);
    setSecret('');
    accounts.reload();
  });
  return (
    <section aria-labelledby="accounts-title">
      <h1 id="accounts-title">Accounts</h1>
      <p>
        Connect an account, or rotate its credential by connecting the same platform and handle again. The credential is stored encrypted and never shown again.
      </p>
      <ErrorNote error={accounts.error} />
      {accounts.data && accounts.data.length === 0 ? <Empty>No account connected yet.</Empty> : null}
      <ul class="cards">
        {accounts.data?.map((a) => (
          <li key={a.id} class="card">
            <p>
              <UserText text={a.handle} /> on {a.platform}{' '}
              <span class={`badge health-${a.status}`}>{a.status === 'active' ? 'working' : 'not working: rotate its credential'}</span>
            </p>
            <p class="meta">
              last checked {fmtDate(a.last_probed_at)} · connected {fmtDate(a.created_at)}
              {a.connected_by === 'sign_in' ? ' by signing in' : ''}
              {a.reconnect_by ? ` · sign in again before ${fmtDate(a.reconnect_by)}` : ''}
            </p>
            {a.status === 'dead' ? <ErrorNote error={a.last_probe_error} /> : null}
            {a.platform !== 'archive' ? (
              <p class="actions">
                <button type="button" class="link" onClick={() => rotate(a)}>
                  Rotate the credential of <UserText text={a.handle} />
                </button>
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      <SignIn client={props.client} onConnected={accounts.reload} />
      <h2>Connect with a credential, or rotate</h2>
      <form onSubmit={submit}>
        <label for="acct-platform">Platform</label>
        <select id="acct-platform" value={platform} onChange={(e) => setPlatform((e.target as HTMLSelectElement).value as Schemas['Platform'])}>
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <label for="acct-handle">Handle {HANDLE_HINT[platform] ?? '(e.g. @me@mastodon.social)'}</label>
        <input id="acct-handle" required value={handle} onInput={(e) => setHandle((e.target as HTMLInputElement).value)} />
        <label for="acct-secret">Access token or app password {platform === 'rss' ? '(none for a feed)' : ''}</label>
        <input id="acct-secret" type="password" autocomplete="off" value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={action.busy}>
          Connect or rotate
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result ? (
        <div class="card" role="status">
          <p>
            {result.result === 'added' ? 'Connected' : 'Credential rotated'}: <UserText text={result.account.handle} /> on {result.account.platform}.
          </p>
          <p>
            Health:{' '}
            <span class={`badge health-${result.account.status}`}>{result.account.status === 'active' ? 'working' : 'dead: rotate its credential'}</span>, last
            checked {fmtDate(result.account.last_probed_at)}.
          </p>
        </div>
      ) : null}
    </section>
  );
}

const POLL_MS = 2000;

/** Connect by signing in: a button per platform the operator set up, or the settings still missing. */
function SignIn(props: { client: Client; onConnected: () => void }) {
  const settings = useLoad(() => unwrap(props.client.GET('/api/agent/v1/accounts/sign-in-settings')), []);
  const [instance, setInstance] = useState('');
  const [pending, setPending] = useState<Schemas['AccountAuthorization'] | null>(null);
  const action = useAction();
  const { client, onConnected } = props;
  useEffect(() => {
    if (pending?.status !== 'pending') return;
    const timer = setTimeout(() => {
      void unwrap(client.GET('/api/agent/v1/accounts/authorizations/{id}', { params: { path: { id: pending.id } } }))
        .then((now) => {
          setPending(now);
          if (now.status === 'connected') onConnected();
        })
        .catch(() => setPending({ ...pending }));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, client, onConnected]);
  const connect = (platform: Schemas['SignInPlatform']) =>
    action.run(async () => {
      // Opened at the click (a page opened later is a blocked pop-up), pointed at the platform once known.
      const tab = window.open('about:blank', '_blank');
      if (tab) tab.opener = null;
      const started = await unwrap(
        client.POST('/api/agent/v1/accounts/authorizations', {
          // Bound to this browser: the callback completes only where the cookie this answer sets is.
          body: { platform, ...(platform === 'mastodon' ? { handle: instance.trim() } : {}), bind_browser: true, idempotency_key: newKey('sign-in') },
        }),
      ).catch((err: unknown) => {
        tab?.close();
        throw err;
      });
      setPending(started);
      if (tab) tab.location.href = started.authorization_url;
    });
  return (
    <>
      <h2>Connect by signing in</h2>
      <ErrorNote error={settings.error} />
      <ul class="cards">
        {settings.data?.platforms.map((p) => (
          <li key={p.platform} class="card">
            {p.configured ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void connect(p.platform);
                }}
              >
                {p.platform === 'mastodon' ? (
                  <>
                    <label for="signin-instance">Your Mastodon instance (e.g. mastodon.social)</label>
                    <input id="signin-instance" required value={instance} onInput={(e) => setInstance((e.target as HTMLInputElement).value)} />
                  </>
                ) : null}
                <button type="submit" disabled={action.busy}>
                  Connect {p.platform}
                </button>
              </form>
            ) : (
              <p>
                {p.platform}: not set up on this service. The operator sets <code>{p.missing_settings.join(', ')}</code> (the platform developer app, see
                docs/accounts.md) and registers the redirect URL <code>{settings.data?.redirect_uri}</code>.
              </p>
            )}
          </li>
        ))}
      </ul>
      <ErrorNote error={action.error} />
      {pending ? (
        <div class="card" role="status">
          {pending.status === 'pending' ? (
            <p>
              Waiting for you to approve on {pending.platform}… <ExternalLink href={pending.authorization_url}>Open the sign-in page</ExternalLink> if it did
              not open.
            </p>
          ) : pending.status === 'connected' ? (
            <p>
              Connected <UserText text={pending.account?.handle ?? ''} /> on {pending.platform}.
            </p>
          ) : (
            <p>Not connected: {pending.failure}.</p>
          )}
        </div>
      ) : null}
    </>
  );
}
