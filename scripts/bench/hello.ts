// The baseline: a bare Express 5 "hello" route, started exactly like the server under test
// (node --import tsx, same flags, a child of the bench with the same IPC), so that the ratios
// measure what the service adds on top of Express and Node.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { serveCommands } from './child-ipc.js';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serveCommands({ url: `http://127.0.0.1:${port}` }, {}, () => new Promise<void>((resolve) => server.close(() => resolve())));
});
