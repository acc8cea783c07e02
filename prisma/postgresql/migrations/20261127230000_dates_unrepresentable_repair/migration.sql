-- Issue 30: dates outside the years 0001-9999 were stored before they were checked where they
-- are read (a `timestamp` holds 4713 BC to 294276 AD and `infinity`), and made every list of
-- their workspace answer 500. No schema change: the rows are repaired.
--
-- A post's date becomes an unread date, as for a date a feed wrote in an unknown form: the date
-- as stored goes to "unreadDate" (unless one is there already) and "publishedAt" becomes the
-- time the post was first stored.
UPDATE "SourcePost"
SET "unreadDate" = COALESCE("unreadDate", left("publishedAt"::text, 200)),
    "publishedAt" = "createdAt"
WHERE "publishedAt" < TIMESTAMP '0001-01-01 00:00:00' OR "publishedAt" >= TIMESTAMP '10000-01-01 00:00:00';

-- An import's summary: a first or last date that is not one becomes null (what the summary says
-- when no date of the export could be read). The summary is JSON.stringify's text (no spaces, an
-- ISO date holds no quote), edited as text: a summary PostgreSQL's jsonb would refuse (a lone
-- surrogate's escape in a file name) cannot stop the start. Prisma's engine splits a script at
-- its semicolons, so no DO block.
UPDATE "Import"
SET "summary" = regexp_replace("summary", '"first_post_at":"([^0-9"]|0000)[^"]*"', '"first_post_at":null')
WHERE "summary" ~ '"first_post_at":"([^0-9"]|0000)';

UPDATE "Import"
SET "summary" = regexp_replace("summary", '"last_post_at":"([^0-9"]|0000)[^"]*"', '"last_post_at":null')
WHERE "summary" ~ '"last_post_at":"([^0-9"]|0000)';

-- A poll's closing time that is not one becomes unknown (null), edited as text as above.
UPDATE "SourcePost"
SET "poll" = regexp_replace("poll", '"closes_at":"([^0-9"]|0000)[^"]*"', '"closes_at":null')
WHERE "poll" ~ '"closes_at":"([^0-9"]|0000)';
