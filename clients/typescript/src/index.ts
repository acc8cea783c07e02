// The typed TypeScript client for the Content Pipeline API, built on openapi-fetch with the types
// generated from the description. It behaves like stripe-node: bearer auth; idempotency keys
// generated when the caller gives none (idempotency.ts); retries with exponential backoff and
// jitter when sending twice is safe, and 429 after Retry-After (retry.ts); item-level
// pagination (pagination.ts); typed errors built from the error envelope (errors.ts).
// This file only re-exports: every module imports what it needs from the module that defines it
// (client.ts for createApiClient, unwrap and the types), so no import runs back to here.
// Everything a browser can use (browser.ts), and the Node helpers that upload a file from a path.
export * from './browser.js';
export * from './imports.js';
export * from './media.js';
export * from './upload-file.js';
