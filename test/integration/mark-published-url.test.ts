// The address of a post made by hand (POST /artifacts/{id}/mark-published) is recorded, shown and
// sent in events, so it must be what it says (issue #30): an https address on the platform's own
// public hosts, with no credentials, no port and no IP literal. Anything else is 422 naming
// body.url with what is accepted, and records nothing.
import { describe, expect, it } from 'vitest';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { MANUAL_POST_HOSTS } from '../../server/services/artifacts.js';
import { V1 } from '../support/api.js';
import { countRows } from '../support/rows.js';
import { seedArtifact, seedPipelineWithPost } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

async function readyArtifact() {
  const deps = t.s.running.deps;
  const { pipelineId, postId } = await seedPipelineWithPost(deps, { workspaceId: t.ws, platform: 'archive', intent: 'Posted by hand' });
  return seedArtifact(deps, { workspaceId: t.ws, pipelineId, postId, state: 'ready', text: 'Posted by hand' });
}

const mark = (id: string, platform: 'x' | 'linkedin' | 'threads', url: string) =>
  t.s.client().POST(`${V1}/artifacts/{id}/mark-published`, { params: { path: { id } }, body: { platform, url, idempotency_key: newIdempotencyKey() } });

describe('mark-published takes only an address on the platform’s own hosts', () => {
  it.each([
    ['x', 'https://127.0.0.1/ada/status/1'],
    ['x', 'https://169.254.169.254/latest/meta-data/'],
    ['x', 'https://[::1]/ada/status/1'],
    ['x', 'https://localhost/ada/status/1'],
    ['x', 'https:///etc/passwd'],
    ['x', 'https://ada:secret@x.com/ada/status/1'],
    ['x', 'https://x.com@evil.example/ada/status/1'],
    ['x', 'https://x.com:8443/ada/status/1'],
    ['x', 'https://x.com.evil.example/ada/status/1'],
    ['x', 'https://www.linkedin.com/feed/update/urn:li:activity:1/'],
    ['x', 'https://x.com/'],
    ['linkedin', 'https://x.com/ada/status/1'],
    ['threads', 'https://2130706433/@ada/post/1'],
    ['threads', 'https://threads.net.evil.example/@ada/post/1'],
  ] as const)('%s %s: 422 naming body.url, nothing recorded', async (platform, url) => {
    const a = await readyArtifact();
    const r = await mark(a.id, platform, url);
    expect(r.response.status).toBe(422);
    expect(r.error?.error.code).toBe('validation_failed');
    expect(r.error?.error.message).toMatch(/^body\.url /);
    expect(await countRows(t.s.running.deps.db, 'ArtifactDestination', { artifactId: a.id })).toBe(0);
  });

  it('says what is accepted', async () => {
    const a = await readyArtifact();
    const r = await mark(a.id, 'x', 'https://169.254.169.254/latest/meta-data/');
    expect(r.error?.error.message).toBe(
      `body.url is on the host 169.254.169.254, not x's; send an https address of a post on x (host ${MANUAL_POST_HOSTS.x.join(', ')}; no user name, password or port).`,
    );
  });

  it.each([
    ['x', 'https://x.com/ada_lovelace/status/1859951771532320873'],
    ['x', 'https://twitter.com/ada_lovelace/status/1859951771532320873'],
    ['x', 'https://X.COM/ada_lovelace/status/1859951771532320873'],
    ['linkedin', 'https://www.linkedin.com/feed/update/urn:li:activity:7265839201837461504/'],
    ['threads', 'https://www.threads.net/@ada/post/C8abcdef'],
    ['threads', 'https://www.threads.com/@ada/post/C8abcdef'],
  ] as const)('%s %s is recorded as given', async (platform, url) => {
    const a = await readyArtifact();
    const r = await mark(a.id, platform, url);
    expect(r.response.status).toBe(200);
    expect(r.data).toMatchObject({ state: 'published', published_url: url });
  });
});
