// The texts to post for an artifact on a platform, in order: one for a single post, several
// for a thread (each posted as a reply to the one before). Until per-platform variants and
// thread splitting land, an artifact is one post: its text.
import type { Platform } from '../adapters/index.js';
import type { ArtifactRow } from '../store/artifacts.js';
import type { ServiceDeps } from './context.js';

export async function publishableParts(_deps: ServiceDeps, artifact: ArtifactRow, _platform: Platform): Promise<string[]> {
  return [artifact.text];
}
