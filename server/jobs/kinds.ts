// Which handler runs each kind of job. One line per kind; each owner adds their own line.
import { registerJob } from './registry.js';
import { ingestJob, ingestHooks } from '../services/ingest.js';
import { draftJob, draftHooks } from '../services/drafting.js';
import { refreshJob } from '../services/sessions.js';
import { publishJob, publishHooks } from '../services/publishing.js';

registerJob('ingest', ingestJob, ingestHooks);
registerJob('draft', draftJob, draftHooks, 'drafting');
registerJob('regenerate_variant', draftJob, draftHooks, 'drafting');
registerJob('refresh_source', refreshJob);
registerJob('publish', publishJob, publishHooks);
