// TEMPORARY (this session only): operations whose issues are being built. Removed before submit.
import type { Handler } from '../http/typed.js';

const pending = (): never => {
  throw new Error('not built yet');
};
export function pendingHandlers() {
  return {
    diagnosePipeline: pending as Handler<'diagnosePipeline'>,
    getPipelineInbox: pending as Handler<'getPipelineInbox'>,
    draftFromPost: pending as Handler<'draftFromPost'>,
    connectAccount: pending as Handler<'connectAccount'>,
    fetchUrl: pending as Handler<'fetchUrl'>,
    listSessionActivity: pending as Handler<'listSessionActivity'>,
    addSessionItem: pending as Handler<'addSessionItem'>,
    regenerateVariant: pending as Handler<'regenerateVariant'>,
    refreshSource: pending as Handler<'refreshSource'>,
    streamEvents: pending as Handler<'streamEvents'>,
    receiveBackendEvent: pending as Handler<'receiveBackendEvent'>,
    receiveScraperMonitorEvent: pending as Handler<'receiveScraperMonitorEvent'>,
  };
}
