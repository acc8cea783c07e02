// The adapters' interface, and the registry of platforms (server/platforms/index.ts).
export * from './types.js';
export { adapterFor, posts, POSTING_PLATFORMS } from '../platforms/index.js';
