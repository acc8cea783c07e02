#!/usr/bin/env bash
# Starts Debian's PostgreSQL 15 for the tests (installing it when missing) and prints the
# DATABASE_URL of a fresh role and database for this project. Idempotent.
set -euo pipefail
PGVER=15
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /usr/lib/postgresql/$PGVER ]; then
  echo "installing postgresql-$PGVER from Debian" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-$PGVER) >&2
fi
if ! pg_lsclusters -h | grep -q "^$PGVER main"; then
  pg_createcluster $PGVER main >&2
fi
if ! pg_lsclusters -h | grep -q "^$PGVER main .* online"; then
  pg_ctlcluster --skip-systemctl-redirect $PGVER main start >&2
fi
psql_() { su postgres -c "psql -v ON_ERROR_STOP=1 -qAt -c \"$1\"" ; }
if [ "$(psql_ "select 1 from pg_roles where rolname='cpa'")" != "1" ]; then
  psql_ "create role cpa login createdb password 'cpa'" >&2
fi
if [ "$(psql_ "select 1 from pg_database where datname='cpa'")" != "1" ]; then
  psql_ "create database cpa owner cpa" >&2
fi
echo "postgresql://cpa:cpa@127.0.0.1:5432/cpa"
