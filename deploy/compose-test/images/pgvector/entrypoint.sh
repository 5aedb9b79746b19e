#!/bin/bash
# What the official postgres image's entrypoint does, as far as the compose file relies on
# it: flags alone mean postgres; as root, the data directory is handed to postgres; an
# empty data directory is initialised with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB
# (POSTGRES_HOST_AUTH_METHOD, POSTGRES_INITDB_ARGS) and /docker-entrypoint-initdb.d is run
# (*.sh, *.sql, *.sql.gz) against a server that listens on the socket only.
set -Eeuo pipefail
case "$1" in -*) set -- postgres "$@" ;; esac
[[ $1 == postgres ]] || exec "$@"

if [[ $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA" && chmod 00700 "$PGDATA" && chown -R postgres:postgres "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  : "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [[ -z ${POSTGRES_PASSWORD:-} && $auth != trust ]]; then
    echo "Error: database is uninitialized and superuser password is not specified." >&2
    echo "       Set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust)." >&2
    exit 1
  fi
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a word list
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
    --auth-local=trust --auth-host="$auth" ${POSTGRES_INITDB_ARGS:-}
  printf '\nhost all all all %s\n' "$auth" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [[ $POSTGRES_DB != postgres ]]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
  fi
  shopt -s nullglob
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; if [[ -x $f ]]; then "$f"; else . "$f"; fi ;;
      *.sql) echo "running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
      *.sql.gz) echo "running $f"; gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
      *) echo "ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
