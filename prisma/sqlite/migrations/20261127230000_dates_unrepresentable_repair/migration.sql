-- Issue 30: dates outside the years 0001-9999 (JavaScript's `+275760-09-13T00:00:00.000Z`,
-- `+010000-…`, `-000001-…`, or year 0000) were stored before they were checked where they are read,
-- and made every list of their workspace answer 500. No schema change: the rows are repaired.
--
-- A post's date becomes an unread date, as for a date a feed wrote in an unknown form: the date
-- as stored goes to "unreadDate" (unless one is there already) and "publishedAt" becomes the
-- time the post was first stored. A representable date is stored as Prisma's ISO text
-- (`2026-11-22T17:00:05.252+00:00`), `YYYY-MM-DD HH:MM:SS`, or epoch milliseconds.
UPDATE "SourcePost"
SET "unreadDate" = COALESCE("unreadDate", substr(CAST("publishedAt" AS TEXT), 1, 200)),
    "publishedAt" = "createdAt"
WHERE CASE typeof("publishedAt")
    WHEN 'text' THEN "publishedAt" NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' OR "publishedAt" GLOB '0000*'
    WHEN 'integer' THEN "publishedAt" < -62135596800000 OR "publishedAt" > 253402300799999
    WHEN 'real' THEN "publishedAt" < -62135596800000 OR "publishedAt" > 253402300799999
    ELSE 0
  END;

-- An import's summary: a first or last date that is not one becomes null (what the summary says
-- when no date of the export could be read). A summary that is not JSON is left as it is.
UPDATE "Import"
SET "summary" = json_set("summary", '$.first_post_at', NULL)
WHERE CASE WHEN json_valid("summary") AND json_type("summary", '$.first_post_at') = 'text'
  THEN json_extract("summary", '$.first_post_at') NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR json_extract("summary", '$.first_post_at') GLOB '0000*'
  ELSE 0 END;

UPDATE "Import"
SET "summary" = json_set("summary", '$.last_post_at', NULL)
WHERE CASE WHEN json_valid("summary") AND json_type("summary", '$.last_post_at') = 'text'
  THEN json_extract("summary", '$.last_post_at') NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR json_extract("summary", '$.last_post_at') GLOB '0000*'
  ELSE 0 END;

-- A poll's closing time that is not one becomes unknown (null).
UPDATE "SourcePost"
SET "poll" = json_set("poll", '$.closes_at', NULL)
WHERE CASE WHEN "poll" IS NOT NULL AND json_valid("poll") AND json_type("poll", '$.closes_at') = 'text'
  THEN json_extract("poll", '$.closes_at') NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR json_extract("poll", '$.closes_at') GLOB '0000*'
  ELSE 0 END;
