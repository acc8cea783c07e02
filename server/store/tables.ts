import type { ColumnType } from "kysely";
export type Generated<T> = T extends ColumnType<infer S, infer I, infer U>
  ? ColumnType<S, I | undefined, U>
  : ColumnType<T, T | undefined, T>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type Account = {
    id: string;
    workspaceId: string;
    platform: string;
    handle: string;
    credentials: string;
    proxyUrl: string | null;
    status: string;
    lastProbedAt: Date;
    lastProbeError: string | null;
    /**
     * `credential` (pasted) or `sign_in` (OAuth 2.0; the sealed credentials then hold the grant).
     */
    connectedBy: Generated<string>;
    /**
     * Bumped on every change of the sealed grant: a refresh commits only on the version it read (compare-and-swap).
     */
    grantVersion: Generated<number>;
    /**
     * Held by the instance that refreshes the grant (the others wait for the new version): docs/accounts.md.
     */
    refreshLeaseUntil: Date | null;
    /**
     * When the grant stops working unless the person signs in again (no refresh token: LinkedIn).
     */
    reconnectBy: Date | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type Activity = {
    id: string;
    workspaceId: string;
    sessionId: string;
    kind: string;
    summary: string;
    createdAt: Generated<Date>;
};
export type AgentToken = {
    id: string;
    workspaceId: string;
    tokenHash: string;
    createdAt: Generated<Date>;
    /**
     * A name for people (null for the token `npm start` or `workspace create` made).
     */
    name: string | null;
    /**
     * The scopes the token holds, space-separated (read draft approve publish accounts admin).
     */
    scopes: Generated<string>;
    expiresAt: Date | null;
    /**
     * When the token was last used, to the minute (written at most once a minute).
     */
    lastUsedAt: Date | null;
    revokedAt: Date | null;
    /**
     * `agent` (a token an agent or script holds) or `person` (a review desk session: `cps_`, every
     * scope, its `expiresAt` slides while it is used, up to 30 days after `createdAt`).
     */
    kind: Generated<string>;
};
export type Artifact = {
    id: string;
    workspaceId: string;
    pipelineId: string;
    sourcePostId: string;
    parentArtifactId: string | null;
    rootArtifactId: string;
    generation: Generated<number>;
    ancestors: Generated<string>;
    /**
     * Every source post the artifact draws on (JSON list, `sourcePostId` first); more than one makes it a brief.
     */
    sourcePostIds: Generated<string>;
    text: string;
    /**
     * The content warning published with the text (Mastodon `spoiler_text`), carried from the source post.
     */
    contentWarning: string | null;
    state: string;
    publishedAt: Date | null;
    publishedUrl: string | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
    /**
     * The most restricted audience of its source posts: publishing anything but public/unlisted needs confirming.
     */
    sourceVisibility: Generated<string>;
    /**
     * When a `scheduled` artifact is due to be published (UTC); null unless scheduled.
     */
    scheduledAt: Date | null;
    /**
     * The local time and IANA zone the schedule was given in, when given that way (shown back as given).
     */
    scheduledLocal: string | null;
    scheduledZone: string | null;
    /**
     * The publish run that owns the artifact while `scheduled` or `publishing` (and the last one after).
     */
    publishRunId: string | null;
    /**
     * Why the last publish failed (`publish_failed`): an error code and its message.
     */
    publishErrorCode: string | null;
    publishErrorMessage: string | null;
    /**
     * The artifact's media in order (JSON list: id, upload_id, source_post_id, type, url, archive_path, alt_text, width, height).
     */
    media: Generated<string>;
    /**
     * When and by whom (a token's name, `first-launch token`; see approverName) the text was approved; null when
     * not approved (never yet, or since reopened or edited by a caller without `approve`).
     */
    approvedAt: Date | null;
    approvedBy: string | null;
};
export type ArtifactDestination = {
    artifactId: string;
    /**
     * The account id (`acc_…`), or `manual:<platform>` for a post made by hand.
     */
    destination: string;
    workspaceId: string;
    accountId: string | null;
    platform: string;
    handle: string | null;
    /**
     * Order of the destinations as chosen (0 first).
     */
    position: Generated<number>;
    state: string;
    /**
     * The publish run that posts (or posted) to it.
     */
    runId: string | null;
    errorCode: string | null;
    errorMessage: string | null;
    /**
     * When the run retries after a transient failure of this destination.
     */
    nextAttemptAt: Date | null;
    publishedAt: Date | null;
    url: string | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type ArtifactUpload = {
    artifactId: string;
    uploadId: string;
    workspaceId: string;
};
export type ArtifactVariant = {
    workspaceId: string;
    artifactId: string;
    platform: string;
    text: string;
    /**
     * JSON list of the posts, numbering included.
     */
    parts: string;
    numbered: Generated<number>;
    origin: string;
    problem: string | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type AuditEvent = {
    id: string;
    workspaceId: string;
    /**
     * agent | person | operator | system
     */
    actorKind: string;
    /**
     * The token (or person session) that acted; null for the operator and the system.
     */
    actorId: string | null;
    /**
     * The actor's name as it was at the time (a token's name, "default token", "operator", "scheduler" …).
     */
    actorName: string;
    /**
     * A stable dotted name: artifact.approved, token.created, account.connected …
     */
    action: string;
    /**
     * What it was done to: artifact, pipeline, account, token …, and its id (null when nothing is named).
     */
    subjectType: string | null;
    subjectId: string | null;
    /**
     * One short line for people.
     */
    summary: string;
    /**
     * JSON text with what else is worth keeping (never a secret), or null.
     */
    detail: string | null;
    createdAt: Date;
};
export type BlobChunk = {
    blobId: string;
    seq: number;
    data: Buffer;
    createdAt: Generated<Date>;
};
export type Decode = {
    id: string;
    workspaceId: string;
    postId: string;
    hook: string;
    format: string;
    length: number;
    hashtags: Generated<string>;
    links: Generated<string>;
    createdAt: Generated<Date>;
};
export type Delivery = {
    id: string;
    eventId: string;
    target: string;
    status: string;
    attempts: Generated<number>;
    nextAttemptAt: Date;
    lockedUntil: Date | null;
    lastStatus: number | null;
    lastError: string | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type DeliveryAttempt = {
    id: string;
    deliveryId: string;
    attempt: number;
    status: number | null;
    error: string | null;
    responseBody: string | null;
    startedAt: Date;
    finishedAt: Date;
};
export type Event = {
    seq: Generated<number>;
    id: string;
    workspaceId: string;
    type: string;
    data: string;
    createdAt: Date;
};
export type ExtractionSchema = {
    workspaceId: string;
    id: string;
    definition: string;
    createdAt: Generated<Date>;
};
export type IdempotencyRecord = {
    workspaceId: string;
    operation: string;
    key: string;
    requestHash: string;
    state: string;
    responseStatus: number | null;
    responseBody: string | null;
    lockedUntil: Date;
    createdAt: Generated<Date>;
    expiresAt: Date;
};
export type Import = {
    id: string;
    workspaceId: string;
    handle: string;
    idempotencyKey: string;
    /**
     * SHA-256 of the uploaded bytes and the import's options: a replay must match it.
     */
    requestHash: string;
    format: string;
    container: string;
    status: string;
    sizeBytes: number;
    sha256: string;
    blobId: string | null;
    includeNonPublic: Generated<number>;
    /**
     * JSON: what the scan found (files used, posts, by visibility, skipped by reason).
     */
    summary: string;
    /**
     * X: the account's own user id, to tell self-threads from replies to others.
     */
    ownUserId: string | null;
    createdAt: Generated<Date>;
};
export type MediaUpload = {
    id: string;
    workspaceId: string;
    idempotencyKey: string;
    /**
     * SHA-256 of the uploaded bytes and the alt text: a replay must match it.
     */
    requestHash: string;
    blobId: string;
    contentType: string;
    sizeBytes: number;
    width: number;
    height: number;
    /**
     * Frames of an animated image; 1 for a still one.
     */
    frames: Generated<number>;
    /**
     * SHA-256 of the stored (re-encoded) bytes.
     */
    sha256: string;
    altText: string | null;
    createdAt: Generated<Date>;
};
export type OAuthAuthorization = {
    id: string;
    workspaceId: string;
    /**
     * The token that started it: only its workspace can follow it.
     */
    tokenId: string;
    platform: string;
    /**
     * The Mastodon instance (host[:port]); null elsewhere.
     */
    instance: string | null;
    /**
     * SHA-256 of the cookie that binds the authorization to the browser that started it (the desk); null: not bound.
     */
    browserBinding: string | null;
    /**
     * The user named at the start (Mastodon), which the account signed in must be.
     */
    expectedHandle: string | null;
    /**
     * SHA-256 of the single-use `state` (the state itself is only in the authorization URL).
     */
    stateHash: string;
    /**
     * The PKCE code verifier, sealed; emptied once the callback used it.
     */
    verifier: string;
    authorizationUrl: string;
    redirectUri: string;
    /**
     * pending, connected, failed
     */
    status: string;
    accountId: string | null;
    failure: string | null;
    expiresAt: Date;
    createdAt: Date;
    updatedAt: Date;
};
export type OAuthClient = {
    instance: string;
    redirectUri: string;
    clientId: string;
    /**
     * Sealed.
     */
    clientSecret: string;
    createdAt: Date;
};
export type Pattern = {
    id: string;
    workspaceId: string;
    pipelineId: string;
    kind: string;
    key: string;
    description: string;
    occurrences: Generated<number>;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type Pipeline = {
    id: string;
    workspaceId: string;
    handle: string;
    intent: string;
    tone: string | null;
    platform: string;
    createdAt: Generated<Date>;
    updatedAt: Date;
    /**
     * The default destinations (JSON list of account ids, in order); null: the pipeline's own
     * account when its platform posts (mastodon, bluesky), none otherwise.
     */
    destinations: string | null;
};
export type PublishedPart = {
    artifactId: string;
    /**
     * The destination the part was posted to (its account id; see ArtifactDestination).
     */
    destination: string;
    position: number;
    /**
     * The platform's id of the post (a Mastodon status id, a Bluesky at:// URI).
     */
    externalId: string;
    /**
     * Bluesky's content id of the record (reply references need it); null on Mastodon.
     */
    cid: string | null;
    url: string | null;
    postedAt: Date;
};
export type PublishedPartMedia = {
    artifactId: string;
    /**
     * The destination the images were uploaded to (its account id).
     */
    destination: string;
    position: number;
    /**
     * JSON: what the post must carry (Mastodon `{mediaIds}`, Bluesky `{embed}`) and the artifact media ids it shows.
     */
    uploaded: string;
    uploadedAt: Date;
};
export type RateLimitWindow = {
    key: string;
    windowStart: number;
    count: number;
};
export type Run = {
    id: string;
    workspaceId: string;
    pipelineId: string | null;
    kind: string;
    status: string;
    attempts: Generated<number>;
    input: Generated<string>;
    output: string | null;
    errorCode: string | null;
    errorMessage: string | null;
    runAfter: Generated<Date>;
    lockedUntil: Date | null;
    lockedBy: string | null;
    createdAt: Generated<Date>;
    startedAt: Date | null;
    finishedAt: Date | null;
    /**
     * Progress of a long run (an archive ingest): items done of `progressTotal`.
     */
    progressDone: number | null;
    progressTotal: number | null;
    /**
     * The HTTP status the upstream answered when the last error came from one (a retry's reason, or the failure's).
     */
    errorUpstreamStatus: number | null;
};
export type Session = {
    workspaceId: string;
    id: string;
    createdAt: Generated<Date>;
};
export type SessionItem = {
    id: string;
    workspaceId: string;
    sessionId: string;
    kind: string;
    text: string | null;
    url: string | null;
    artifactId: string | null;
    sourceId: string | null;
    createdAt: Generated<Date>;
};
export type Setting = {
    key: string;
    value: string;
};
export type Snapshot = {
    id: string;
    workspaceId: string;
    sourceId: string;
    contentHash: string;
    title: string | null;
    markdown: string;
    fetchedAt: Date;
};
export type Source = {
    id: string;
    workspaceId: string;
    url: string;
    lastSnapshotId: string | null;
    lastHash: string | null;
    createdAt: Generated<Date>;
    updatedAt: Date;
};
export type SourcePost = {
    id: string;
    workspaceId: string;
    pipelineId: string;
    platform: string;
    externalId: string;
    url: string | null;
    text: string;
    publishedAt: Date;
    likes: Generated<number>;
    reposts: Generated<number>;
    replies: Generated<number>;
    quotes: Generated<number>;
    artifactCount: Generated<number>;
    createdAt: Generated<Date>;
    updatedAt: Date;
    /**
     * Who could see the post where it was written: public | unlisted | followers | connections.
     */
    visibility: Generated<string>;
    /**
     * Media references (JSON list: type, url, archive_path, alt_text, width, height).
     */
    media: Generated<string>;
    /**
     * The external id of the author's own post this one answers (a self-thread), if any.
     */
    replyTo: string | null;
    /**
     * The content warning the author put over the post (Mastodon `summary` / `spoiler_text`), if any.
     */
    contentWarning: string | null;
    /**
     * A poll the post asked (JSON: multiple, options [{title, votes}], closes_at, voters), if any.
     */
    poll: string | null;
    /**
     * An edited post (X edit chain): the address of its first version; the post has the last version's text.
     */
    firstVersionUrl: string | null;
    /**
     * The date as the source wrote it when it could not be read (`publishedAt` is then the first ingest's time).
     */
    unreadDate: string | null;
};
export type VariantRound = {
    id: string;
    workspaceId: string;
    sessionId: string;
    variantId: string;
    round: number;
    runId: string;
    artifactId: string | null;
    createdAt: Generated<Date>;
};
export type Workspace = {
    id: string;
    name: string;
    createdAt: Generated<Date>;
    /**
     * The approval gate: nothing is published or scheduled until a person (or a token with
     * `approve`) approved it. New workspaces are created with it on; those that existed before
     * the gate keep it off (the column's default).
     */
    approvalRequired: Generated<number>;
};
export type DB = {
    Account: Account;
    Activity: Activity;
    AgentToken: AgentToken;
    Artifact: Artifact;
    ArtifactDestination: ArtifactDestination;
    ArtifactUpload: ArtifactUpload;
    ArtifactVariant: ArtifactVariant;
    AuditEvent: AuditEvent;
    BlobChunk: BlobChunk;
    Decode: Decode;
    Delivery: Delivery;
    DeliveryAttempt: DeliveryAttempt;
    Event: Event;
    ExtractionSchema: ExtractionSchema;
    IdempotencyRecord: IdempotencyRecord;
    Import: Import;
    MediaUpload: MediaUpload;
    OAuthAuthorization: OAuthAuthorization;
    OAuthClient: OAuthClient;
    Pattern: Pattern;
    Pipeline: Pipeline;
    PublishedPart: PublishedPart;
    PublishedPartMedia: PublishedPartMedia;
    RateLimitWindow: RateLimitWindow;
    Run: Run;
    Session: Session;
    SessionItem: SessionItem;
    Setting: Setting;
    Snapshot: Snapshot;
    Source: Source;
    SourcePost: SourcePost;
    VariantRound: VariantRound;
    Workspace: Workspace;
};
