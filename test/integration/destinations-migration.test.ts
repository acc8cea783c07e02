// The destinations migration (issue 23) carries existing data over, on the database under test:
// a database at the schema before it, with a published thread, a failed publish and a scheduled
// one on a Mastodon pipeline (and a published archive artifact, which posted nothing), is
// migrated; each handed-to-a-run artifact then has the destination row of its pipeline's own
// account in the state it was in, and its parts and uploaded images are keyed by that account.
import { afterAll, describe, expect, it } from 'vitest';
import { beforeMigration, type BeforeMigration } from '../support/migration.js';
import { testDbKind } from '../support/database.js';

const kind = testDbKind();
const MIGRATION = '20261126091828_artifact_destinations';
let db: BeforeMigration | null = null;

afterAll(async () => {
  await db?.cleanup();
});

describe(`the destinations migration (${kind})`, () => {
  it('makes the destination rows of the pipeline’s own account and keys the parts by it', async () => {
    db = await beforeMigration(MIGRATION);
    const t = kind === 'sqlite' ? Date.UTC(2026, 10, 20, 9, 0, 0) : new Date(Date.UTC(2026, 10, 20, 9, 0, 0));
    const artifact = (id: string, pipelineId: string, state: string, run: string | null, extra: string[] = []) =>
      [
        `INSERT INTO "Artifact" ("id","workspaceId","pipelineId","sourcePostId","rootArtifactId","text","state","createdAt","updatedAt","publishRunId","publishedAt","publishedUrl","publishErrorCode","publishErrorMessage","scheduledAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        [id, 'ws_1', pipelineId, 'post_1', id, 'Hello 🌍', state, t, t, run, ...extra.map((x) => (x === 'T' ? t : x === '' ? null : x))],
      ] as [string, unknown[]];
    await db.sql([
      [
        `INSERT INTO "Account" ("id","workspaceId","platform","handle","credentials","status","lastProbedAt","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?)`,
        ['acc_m', 'ws_1', 'mastodon', '@ada@mastodon.example', 'sealed', 'active', t, t, t],
      ],
      [
        `INSERT INTO "Pipeline" ("id","workspaceId","handle","intent","platform","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?)`,
        ['pl_m', 'ws_1', '@ada@mastodon.example', 'i', 'mastodon', t, t],
      ],
      [
        `INSERT INTO "Pipeline" ("id","workspaceId","handle","intent","platform","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?)`,
        ['pl_a', 'ws_1', 'my-x', 'i', 'archive', t, t],
      ],
      artifact('art_live', 'pl_m', 'published', 'run_1', ['T', 'https://mastodon.example/@ada/1', '', '', '']),
      artifact('art_failed', 'pl_m', 'publish_failed', 'run_2', ['', '', 'credential_dead', 'The token was revoked.', '']),
      artifact('art_sched', 'pl_m', 'scheduled', 'run_3', ['', '', '', '', 'T']),
      artifact('art_ready', 'pl_m', 'ready', null, ['', '', '', '', '']),
      artifact('art_archive', 'pl_a', 'published', null, ['T', '', '', '', '']),
      [
        `INSERT INTO "PublishedPart" ("artifactId","position","externalId","url","postedAt") VALUES (?,?,?,?,?)`,
        ['art_live', 0, '1', 'https://mastodon.example/@ada/1', t],
      ],
      [
        `INSERT INTO "PublishedPart" ("artifactId","position","externalId","url","postedAt") VALUES (?,?,?,?,?)`,
        ['art_live', 1, '2', 'https://mastodon.example/@ada/2', t],
      ],
      [
        `INSERT INTO "PublishedPart" ("artifactId","position","externalId","url","postedAt") VALUES (?,?,?,?,?)`,
        ['art_failed', 0, '3', 'https://mastodon.example/@ada/3', t],
      ],
      [
        `INSERT INTO "PublishedPartMedia" ("artifactId","position","uploaded","uploadedAt") VALUES (?,?,?,?)`,
        ['art_live', 0, '{"media_ids":[],"uploaded":{"mediaIds":["9"]}}', t],
      ],
    ]);

    await db.migrate();

    const dest = await db.sql([
      [
        `SELECT "artifactId","destination","accountId","platform","handle","state","runId","errorCode","url" FROM "ArtifactDestination" ORDER BY "artifactId"`,
        [],
      ],
    ]);
    expect(dest).toEqual([
      {
        artifactId: 'art_failed',
        destination: 'acc_m',
        accountId: 'acc_m',
        platform: 'mastodon',
        handle: '@ada@mastodon.example',
        state: 'failed',
        runId: 'run_2',
        errorCode: 'credential_dead',
        url: null,
      },
      {
        artifactId: 'art_live',
        destination: 'acc_m',
        accountId: 'acc_m',
        platform: 'mastodon',
        handle: '@ada@mastodon.example',
        state: 'live',
        runId: 'run_1',
        errorCode: null,
        url: 'https://mastodon.example/@ada/1',
      },
      {
        artifactId: 'art_sched',
        destination: 'acc_m',
        accountId: 'acc_m',
        platform: 'mastodon',
        handle: '@ada@mastodon.example',
        state: 'scheduled',
        runId: 'run_3',
        errorCode: null,
        url: null,
      },
    ]);
    const parts = await db.sql([[`SELECT "artifactId","destination","position" FROM "PublishedPart" ORDER BY "artifactId","position"`, []]]);
    expect(parts).toEqual([
      { artifactId: 'art_failed', destination: 'acc_m', position: 0 },
      { artifactId: 'art_live', destination: 'acc_m', position: 0 },
      { artifactId: 'art_live', destination: 'acc_m', position: 1 },
    ]);
    expect(await db.sql([[`SELECT "artifactId","destination" FROM "PublishedPartMedia"`, []]])).toEqual([{ artifactId: 'art_live', destination: 'acc_m' }]);
    expect(await db.sql([[`SELECT "id","destinations" FROM "Pipeline" ORDER BY "id"`, []]])).toEqual([
      { id: 'pl_a', destinations: null },
      { id: 'pl_m', destinations: null },
    ]);
  }, 180_000);
});
