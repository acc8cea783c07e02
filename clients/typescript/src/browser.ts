// The typed client for a browser (the review desk, desk/): everything of index.ts but the Node
// helpers that upload a file from a path (imports.ts, media.ts, upload-file.ts: node:fs,
// node:stream). A page uploads with the same operations, its bytes from a File.
export * from './client.js';
export * from './errors.js';
export * from './retry.js';
export * from './idempotency.js';
export * from './pagination.js';
export * from './operations.js';
export * from './runs.js';
export * from './events.js';
