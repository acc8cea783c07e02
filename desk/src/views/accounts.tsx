// Accounts: the workspace's accounts with their health (GET /accounts), connect one, or rotate
// its credential (connecting the same platform and handle again).
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { Empty, ErrorNote, fmtDate, newKey, submitting, useAction, useLoad, UserText, type Client } from '../ui.js';

const PLATFORMS: Schemas['Platform'][] = ['mastodon', 'bluesky', 'rss'];

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
            </p>
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
      <h2>Connect or rotate</h2>
      <form onSubmit={submit}>
        <label for="acct-platform">Platform</label>
        <select id="acct-platform" value={platform} onChange={(e) => setPlatform((e.target as HTMLSelectElement).value as Schemas['Platform'])}>
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <label for="acct-handle">Handle {platform === 'rss' ? '(the feed address)' : '(e.g. @me@mastodon.social)'}</label>
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
