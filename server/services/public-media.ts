// Images served at a public address for a platform that fetches them itself (Threads): the
// address `PUBLIC_BASE_URL/api/media-public/{token}` names one image of one artifact, sealed with
// the credentials cipher (AES-256-GCM: nobody without the key makes or changes a token) and
// expiring 24 hours after it was made (a retried publish reuses the addresses it recorded).
import type { ServiceDeps } from './context.js';
import { missing } from '../errors.js';
import { findArtifact } from '../store/artifacts.js';
import { credentialCipher } from './crypto.js';
import { CONTENT_TYPES } from './images.js';
import { mediaOf } from './media-items.js';
import { fitForPlatform, type MediaPlatform } from './media-limits.js';
import { mediaItemBytes } from './media.js';

/** How long an address stays valid. */
export const PUBLIC_MEDIA_TTL_MS = 24 * 3600 * 1000;
const AAD = 'media-public';

interface Claim {
  w: string;
  a: string;
  m: string;
  p: MediaPlatform;
  exp: number;
}

/** The public address of one image of an artifact, fitted to `platform`; null when the service has no public address. */
export function publicImageUrl(
  deps: Pick<ServiceDeps, 'config' | 'clock'>,
  q: { workspaceId: string; artifactId: string; mediaId: string; platform: MediaPlatform },
): string | null {
  const base = deps.config.publicBaseUrl;
  if (!base) return null;
  const claim: Claim = { w: q.workspaceId, a: q.artifactId, m: q.mediaId, p: q.platform, exp: deps.clock.now().getTime() + PUBLIC_MEDIA_TTL_MS };
  return `${base}/api/media-public/${credentialCipher(deps.config).encrypt(JSON.stringify(claim), AAD)}`;
}

const gone = () => missing('No such image: the address is not valid or has expired.');

/** GET /api/media-public/{token}: the image's bytes, fitted to the platform the address was made for. */
export async function publicImage(deps: ServiceDeps, token: string): Promise<{ bytes: Buffer; contentType: string }> {
  let claim: Claim;
  try {
    claim = JSON.parse(credentialCipher(deps.config).decrypt(token, AAD)) as Claim;
  } catch {
    throw gone();
  }
  if (typeof claim.exp !== 'number' || claim.exp <= deps.clock.now().getTime()) throw gone();
  const a = await findArtifact(deps.db, claim.w, claim.a);
  const item = a ? mediaOf(a).find((m) => m.id === claim.m) : undefined;
  if (!item) throw gone();
  const found = await mediaItemBytes(deps, claim.w, item).catch(() => null);
  if (!found) throw gone();
  const fitted = await fitForPlatform(found.bytes, claim.p);
  return { bytes: fitted.bytes, contentType: CONTENT_TYPES[fitted.format] };
}
