// Accounts: connect a platform account, or rotate its credential (connecting the same platform
// and handle again), and see its health as the service probed it.
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/index.js';
import { ErrorNote, fmtDate, newKey, submitting, useAction, UserText, type Client } from '../ui.js';

const PLATFORMS: Schemas['Platform'][] = ['mastodon', 'bluesky', 'rss'];

export function AccountsView(props: { client: Client }) {
  const [platform, setPlatform] = useState<Schemas['Platform']>('mastodon');
  const [handle, setHandle] = useState('');
  const [secret, setSecret] = useState('');
  const [result, setResult] = useState<Schemas['ConnectAccountResult'] | null>(null);
  const action = useAction();
  const submit = submitting(action, async () => {
    const r = await unwrap(
      props.client.POST('/api/agent/v1/accounts/connect', {
        body: { platform, handle: handle.trim(), auth_material: secret, idempotency_key: newKey('connect') },
      }),
    );
    setResult(r);
    setSecret('');
  });
  return (
    <section aria-labelledby="accounts-title">
      <h1 id="accounts-title">Accounts</h1>
      <p>
        Connect an account, or rotate its credential by connecting the same platform and handle again. The credential is stored encrypted and never shown again.
      </p>
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
