// TEMPORARY (this session only): replaced by the SSRF-safe client of the /fetch issue.
import type { Config } from '../config.js';
import { OutboundError, type OutboundClient } from './types.js';

export function createOutboundClient(_config: Config): OutboundClient {
  return {
    request: async () => {
      throw new OutboundError('network', 'outbound client not built yet');
    },
  };
}
