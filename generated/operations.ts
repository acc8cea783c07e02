// Made by scripts/generate-operations.ts from generated/openapi.json (`npm run generate`): never edit by hand.

/** The operations that require the bearer token: their handlers receive the `caller`. */
export type BearerOperation = "addSessionItem" | "bulkScheduleArtifacts" | "bulkTransitionArtifacts" | "checkAccount" | "connectAccount" | "createDeskSignInLink" | "createImport" | "createPipelineFromIntent" | "createToken" | "deleteFetchSchema" | "diagnosePipeline" | "draftFromPost" | "fetchUrl" | "getAccountAuthorization" | "getArtifact" | "getCalendar" | "getCurrentToken" | "getImport" | "getMedia" | "getPipeline" | "getPipelineInbox" | "getRun" | "getSignInSettings" | "getWorkspace" | "listAccounts" | "listArtifactChildren" | "listArtifacts" | "listAuditEvents" | "listFetchSchemas" | "listImports" | "listPipelinePosts" | "listPipelines" | "listPipelineSchedule" | "listRuns" | "listSessionActivity" | "listTokens" | "markArtifactPublished" | "publishArtifact" | "putArtifactVariant" | "putFetchSchema" | "refreshSource" | "regenerateVariant" | "revokeToken" | "rotateToken" | "setArtifactMedia" | "setPipelineDestinations" | "startAccountAuthorization" | "streamEvents" | "transitionArtifact" | "unscheduleArtifact" | "updateWorkspace" | "uploadMedia";

/** The operations without the bearer token (public, or authenticated by a signature). */
export type PublicOperation = "exchangeDeskSignIn" | "getHealth" | "getPublicMedia" | "getReadiness" | "receiveBackendEvent" | "receiveScraperMonitorEvent";

/** The operations of each tag (an operation counts under its first tag): one handler module each. */
export interface OperationsByTag {
  "Accounts": "checkAccount" | "connectAccount" | "getAccountAuthorization" | "getSignInSettings" | "listAccounts" | "startAccountAuthorization";
  "Artifacts": "bulkScheduleArtifacts" | "bulkTransitionArtifacts" | "draftFromPost" | "getArtifact" | "listArtifactChildren" | "listArtifacts" | "markArtifactPublished" | "publishArtifact" | "putArtifactVariant" | "setArtifactMedia" | "transitionArtifact" | "unscheduleArtifact";
  "Audit": "listAuditEvents";
  "Calendar": "getCalendar";
  "Desk": "createDeskSignInLink" | "exchangeDeskSignIn";
  "Events": "streamEvents";
  "Fetch": "deleteFetchSchema" | "fetchUrl" | "listFetchSchemas" | "putFetchSchema";
  "Health": "getHealth" | "getReadiness";
  "Imports": "createImport" | "getImport" | "listImports";
  "Internal": "receiveBackendEvent" | "receiveScraperMonitorEvent";
  "Media": "getMedia" | "getPublicMedia" | "uploadMedia";
  "Pipelines": "createPipelineFromIntent" | "diagnosePipeline" | "getPipeline" | "getPipelineInbox" | "listPipelines" | "listPipelineSchedule" | "setPipelineDestinations";
  "Posts": "listPipelinePosts";
  "Runs": "getRun" | "listRuns";
  "Sessions": "addSessionItem" | "listSessionActivity" | "refreshSource" | "regenerateVariant";
  "Tokens": "createToken" | "getCurrentToken" | "listTokens" | "revokeToken" | "rotateToken";
  "Workspace": "getWorkspace" | "updateWorkspace";
}

/**
 * The headers a handler sets on each 2xx answer, as the contract declares them (X-Request-Id and
 * the RateLimit headers, which the pipeline sets on every answer, left out).
 */
export interface HandlerResponseHeaders {
  addSessionItem: { 201: { "Idempotent-Replayed"?: "true"; } };
  bulkScheduleArtifacts: { 200: { "Idempotent-Replayed"?: "true"; } };
  bulkTransitionArtifacts: { 200: { "Idempotent-Replayed"?: "true"; } };
  checkAccount: { 200: {} };
  connectAccount: { 200: { "Idempotent-Replayed"?: "true"; } };
  createDeskSignInLink: { 201: { "Cache-Control": "no-store"; } };
  createImport: { 200: { "Idempotent-Replayed"?: "true"; }; 201: {} };
  createPipelineFromIntent: { 202: { "Idempotent-Replayed"?: "true"; } };
  createToken: { 201: {} };
  deleteFetchSchema: { 200: {} };
  diagnosePipeline: { 200: {} };
  draftFromPost: { 202: { "Idempotent-Replayed"?: "true"; } };
  exchangeDeskSignIn: { 200: { "Cache-Control": "no-store"; } };
  fetchUrl: { 200: { "Idempotent-Replayed"?: "true"; } };
  getAccountAuthorization: { 200: {} };
  getArtifact: { 200: {} };
  getCalendar: { 200: {} };
  getCurrentToken: { 200: {} };
  getHealth: { 200: {} };
  getImport: { 200: {} };
  getMedia: { 200: {} };
  getPipeline: { 200: {} };
  getPipelineInbox: { 200: {} };
  getPublicMedia: { 200: {} };
  getReadiness: { 200: {} };
  getRun: { 200: {} };
  getSignInSettings: { 200: {} };
  getWorkspace: { 200: {} };
  listAccounts: { 200: {} };
  listArtifactChildren: { 200: {} };
  listArtifacts: { 200: {} };
  listAuditEvents: { 200: {} };
  listFetchSchemas: { 200: {} };
  listImports: { 200: {} };
  listPipelinePosts: { 200: {} };
  listPipelines: { 200: {} };
  listPipelineSchedule: { 200: {} };
  listRuns: { 200: {} };
  listSessionActivity: { 200: {} };
  listTokens: { 200: {} };
  markArtifactPublished: { 200: { "Idempotent-Replayed"?: "true"; } };
  publishArtifact: { 202: { "Idempotent-Replayed"?: "true"; } };
  putArtifactVariant: { 200: {}; 201: {} };
  putFetchSchema: { 200: {}; 201: {} };
  receiveBackendEvent: { 200: {} };
  receiveScraperMonitorEvent: { 200: {} };
  refreshSource: { 202: {} };
  regenerateVariant: { 202: {} };
  revokeToken: { 200: {} };
  rotateToken: { 201: { "Cache-Control": "no-store"; } };
  setArtifactMedia: { 200: {} };
  setPipelineDestinations: { 200: {} };
  startAccountAuthorization: { 201: { "Idempotent-Replayed"?: "true"; "Set-Cookie"?: string; } };
  streamEvents: { 200: {} };
  transitionArtifact: { 200: { "Idempotent-Replayed"?: "true"; } };
  unscheduleArtifact: { 200: {} };
  updateWorkspace: { 200: {} };
  uploadMedia: { 200: { "Idempotent-Replayed"?: "true"; }; 201: {} };
}
