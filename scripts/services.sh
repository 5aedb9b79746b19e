#!/usr/bin/env bash
# services.sh — make sure Redis, PostgreSQL and pgvector are there for NewsCrawl,
# on a machine without Docker. Idempotent; quick (well under 2 s) when all is there.
#
# usage:
#   scripts/services.sh ensure [DB...]    Redis + PostgreSQL + pgvector reachable; then each
#                                         DB (and the database DATABASE_URL names, if it is
#                                         not "postgres") exists with the vector extension.
#   scripts/services.sh createdb [DB...]  the same as ensure (kept as its own verb for clarity).
#   scripts/services.sh status            report only; installs and starts nothing; exit 1
#                                         if something is missing.
#   scripts/services.sh apt-install PKG...  apt-get update + install --no-install-recommends
#                                         of the PKGs not yet installed (for other scripts).
#   scripts/services.sh pgvector-build MAJOR  build and install pgvector for PostgreSQL MAJOR
#                                         from source as ensure does, nothing started (the
#                                         compose test's PostgreSQL image runs it).
#   scripts/services.sh mirror            print the Debian mirror this machine's apt uses.
#   scripts/services.sh cluster-start DIR [PORT]  a local Redis Cluster for trying REDIS_CLUSTER=1:
#                                         3 masters and 3 replicas of Debian's redis-server on
#                                         127.0.0.1:PORT..PORT+5 (default 17000), data and logs in
#                                         DIR; prints the REDIS_URL to use (cluster seed list).
#   scripts/services.sh cluster-stop DIR  stop the cluster started in DIR (by the pids it wrote).
#
# environment:
#   DATABASE_URL   postgres URL (or key=value conninfo); default
#                  postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
#   REDIS_URL      default redis://127.0.0.1:6379/0
#   NEWSCRAWL_NO_INSTALL=1      never install or start anything; fail if something is missing
#   NEWSCRAWL_BUILD_DIR         where pgvector is built (default /var/cache/newscrawl)
#   NEWSCRAWL_PGVECTOR_SUITE    Debian suite whose *source* package pgvector is built
#                               (default trixie)
#   NEWSCRAWL_PG_MAJOR          PostgreSQL major to install when none is (default: the
#                               one whose server binaries are present, else 15)
#
# What it does when something is missing (only then, and only for services on this host;
# a remote service that is unreachable or lacks pgvector is an error, never an install):
#   - Redis: apt-get install redis-server if needed, start it daemonized on the URL's port.
#   - PostgreSQL: apt-get install postgresql-$MAJOR if needed, create/start the cluster.
#   - pgvector: bookworm has no binary package, so it is built from Debian's source package
#     (trixie), fetched with `apt-get source` through a deb-src-only entry that points at the
#     mirror this machine already uses (taken from its own apt sources, never hard-coded).
# Messages go to stderr, so callers' stdout stays theirs.
set -euo pipefail

PROG=services
DEFAULT_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
DEFAULT_REDIS_URL='redis://127.0.0.1:6379/0'
DATABASE_URL=${DATABASE_URL:-$DEFAULT_DATABASE_URL}
REDIS_URL=${REDIS_URL:-$DEFAULT_REDIS_URL}
BUILD_DIR=${NEWSCRAWL_BUILD_DIR:-/var/cache/newscrawl}
PGVECTOR_SUITE=${NEWSCRAWL_PGVECTOR_SUITE:-trixie}
SRC_LIST=/etc/apt/sources.list.d/newscrawl-${PGVECTOR_SUITE}-src.sources
LOCK_FILE=${TMPDIR:-/tmp}/newscrawl-services.lock
export PGCONNECT_TIMEOUT=${PGCONNECT_TIMEOUT:-5}
export PGOPTIONS="${PGOPTIONS:+$PGOPTIONS }-c client_min_messages=warning"
export DEBIAN_FRONTEND=noninteractive

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
in_dir() ( cd "$1" && shift && "$@" )

no_install() { [[ ${NEWSCRAWL_NO_INSTALL:-0} == 1 ]]; }

# ---------------------------------------------------------------- privileges, apt, lock

SUDO=()
# fd 9 holds our lock: never hand it to what we run (a daemon started here would keep it).
as_root() { "${SUDO[@]}" "$@" 9>&-; }
need_root() {
  if [[ $EUID -eq 0 ]]; then SUDO=(); return; fi
  have sudo || die "need root (or sudo) to $1"
  SUDO=(sudo)
}

APT_LOG=${TMPDIR:-/tmp}/newscrawl-services.log
# run_logged WHAT CMD...: run CMD with its output in $APT_LOG; show the tail if it fails.
run_logged() {
  local what=$1; shift
  if ! "$@" >>"$APT_LOG" 2>&1; then
    tail -n 40 "$APT_LOG" >&2
    die "$what failed (full output: $APT_LOG)"
  fi
}

APT_UPDATED=0
apt_update() {
  need_root "run apt-get"
  log "apt-get update (output of apt and daemons in $APT_LOG)"
  run_logged "apt-get update" as_root apt-get -o DPkg::Lock::Timeout=300 update
  if grep -E '^(W|E): .*(Failed to fetch|could not be verified|NO_PUBKEY)' "$APT_LOG" | tail -n 5 >&2; then
    log "warning: apt-get update reported problems (above)"
  fi
  APT_UPDATED=1
}
apt_install() {
  need_root "install $*"
  have apt-get || die "apt-get not found; install $* by hand"
  [[ $APT_UPDATED == 1 ]] || apt_update
  log "apt-get install --no-install-recommends $*"
  run_logged "apt-get install $*" as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"
}

LOCKED=0
take_lock() { # serialise the slow paths of concurrent runs (make test and make up, say)
  [[ $LOCKED == 1 ]] && return
  exec 9>>"$LOCK_FILE"
  if have flock; then flock -w 1800 9 || die "could not lock $LOCK_FILE"; fi
  LOCKED=1
}

# ---------------------------------------------------------------- URL parsing

# parse_url URL: sets U_SCHEME U_USERINFO U_HOSTPORT U_HOST U_PORT U_PATH U_QUERY.
parse_url() {
  local rest=$1
  U_SCHEME='' U_USERINFO='' U_HOSTPORT='' U_HOST='' U_PORT='' U_PATH='' U_QUERY=''
  [[ $rest == *://* ]] || return 1
  U_SCHEME=${rest%%://*}; rest=${rest#*://}
  if [[ $rest == *'?'* ]]; then U_QUERY=${rest#*'?'}; rest=${rest%%'?'*}; fi
  if [[ $rest == */* ]]; then U_PATH=${rest#*/}; rest=${rest%%/*}; fi
  if [[ $rest == *@* ]]; then U_USERINFO=${rest%@*}; rest=${rest##*@}; fi
  U_HOSTPORT=$rest
  if [[ $rest == '['* ]]; then            # [::1]:5432
    U_HOST=${rest%%]*}; U_HOST=${U_HOST#[}
    rest=${rest#*]}; U_PORT=${rest#:}
  elif [[ $rest == *:* ]]; then
    U_HOST=${rest%:*}; U_PORT=${rest##*:}
  else
    U_HOST=$rest
  fi
}

# query_param NAME QUERY: value of NAME in a URL query string ("" if absent).
query_param() {
  local kv
  local IFS='&'
  for kv in $2; do [[ ${kv%%=*} == "$1" ]] && { printf '%s' "${kv#*=}"; return; }; done
  return 0
}

# conninfo_param NAME CONNINFO: value of NAME in a key=value conninfo string.
conninfo_param() {
  local tok
  for tok in $2; do [[ ${tok%%=*} == "$1" ]] && { printf '%s' "${tok#*=}"; return; }; done
  return 0
}

PG_IS_URL=0
pg_parse() {
  if parse_url "$DATABASE_URL"; then
    case $U_SCHEME in postgres|postgresql) ;; *) die "DATABASE_URL: unknown scheme '$U_SCHEME'";; esac
    PG_IS_URL=1
    PG_HOST=$U_HOST; PG_PORT=${U_PORT:-5432}; PG_DB=$U_PATH
    [[ -n $PG_HOST ]] || PG_HOST=$(query_param host "$U_QUERY")
    [[ -n $(query_param port "$U_QUERY") ]] && PG_PORT=$(query_param port "$U_QUERY")
    [[ -n $PG_DB ]] || PG_DB=$(query_param dbname "$U_QUERY")
    PG_URL_PREFIX="$U_SCHEME://${U_USERINFO:+$U_USERINFO@}$U_HOSTPORT"
    PG_URL_QUERY=$U_QUERY
  else # key=value conninfo
    PG_HOST=$(conninfo_param host "$DATABASE_URL")
    PG_PORT=$(conninfo_param port "$DATABASE_URL"); PG_PORT=${PG_PORT:-5432}
    PG_DB=$(conninfo_param dbname "$DATABASE_URL")
  fi
  PG_DB=${PG_DB:-postgres}
}

# pg_url DB: DATABASE_URL pointing at database DB instead.
pg_url() {
  if [[ $PG_IS_URL == 1 ]]; then
    local q=$PG_URL_QUERY
    if [[ -n $q && -n $(query_param dbname "$q") ]]; then # drop a dbname= parameter
      local kv out='' IFS='&'
      for kv in $q; do [[ ${kv%%=*} == dbname ]] || out+=${out:+&}$kv; done
      q=$out
    fi
    printf '%s/%s%s' "$PG_URL_PREFIX" "$1" "${q:+?$q}"
  else
    printf '%s dbname=%s' "$DATABASE_URL" "$1" # a later keyword wins in libpq
  fi
}

redis_parse() {
  parse_url "$REDIS_URL" || die "REDIS_URL is not a URL: $REDIS_URL"
  case $U_SCHEME in redis|rediss) ;; *) die "REDIS_URL: unknown scheme '$U_SCHEME'";; esac
  R_SCHEME=$U_SCHEME; R_HOST=${U_HOST:-127.0.0.1}; R_PORT=${U_PORT:-6379}
}

is_local_host() {
  case $1 in
    ''|localhost|127.*|::1|0.0.0.0|/*) return 0;;
    *) return 1;;
  esac
}

valid_db_name() { [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_-]{0,62}$ ]]; }

# ---------------------------------------------------------------- Redis

# shellcheck disable=SC2016 # $1/$2 expand in the inner bash
tcp_open() { timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null; }

redis_ok() {
  if [[ $R_SCHEME == rediss ]]; then tcp_open "$R_HOST" "$R_PORT"; return; fi
  local out
  if have redis-cli; then
    out=$(timeout 5 redis-cli -u "$REDIS_URL" --no-auth-warning ping 2>&1) || return 1
    [[ $out == PONG ]]
  else
    # no client: speak RESP over bash's /dev/tcp
    # shellcheck disable=SC2016
    out=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "PING\r\n" >&3 && IFS= read -r l <&3 && printf %s "$l"' _ "$R_HOST" "$R_PORT" 2>/dev/null) || return 1
    [[ $out == +PONG* || $out == -NOAUTH* ]]
  fi
}

ensure_redis() {
  redis_parse
  if redis_ok; then REDIS_STATUS="ok ($R_HOST:$R_PORT)"; return; fi
  is_local_host "$R_HOST" || die "Redis at $R_HOST:$R_PORT is not reachable (not local: not starting anything)"
  no_install && die "Redis at $R_HOST:$R_PORT is not reachable (NEWSCRAWL_NO_INSTALL=1)"
  take_lock
  redis_ok && { REDIS_STATUS="ok ($R_HOST:$R_PORT)"; return; }
  if ! have redis-server; then
    apt_install redis-server
    if redis_ok; then REDIS_STATUS="ok ($R_HOST:$R_PORT, installed)"; return; fi # package may start it
  fi
  need_root "start redis-server"
  as_root mkdir -p /var/lib/redis /var/log/redis
  log "starting redis-server on 127.0.0.1:$R_PORT"
  # output to a file, never to our caller's pipes: a daemon must not hold them open
  run_logged "starting redis-server (see also /var/log/redis/ci.log)" \
    as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$R_PORT" --save "" \
    --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log </dev/null
  local i
  for ((i = 0; i < 50; i++)); do
    redis_ok && { REDIS_STATUS="ok ($R_HOST:$R_PORT, started)"; return; }
    sleep 0.2
  done
  die "redis-server started but does not answer PING on $R_HOST:$R_PORT (see /var/log/redis/ci.log)"
}

# ---------------------------------------------------------------- PostgreSQL

need_psql() {
  have psql && return
  no_install && die "psql not found (NEWSCRAWL_NO_INSTALL=1)"
  take_lock
  have psql || apt_install postgresql-client
}

# psql_q CONN SQL [VAR=VALUE...]: run SQL (psql variables allowed) and print unaligned rows.
psql_q() {
  local conn=$1 sql=$2; shift 2
  local vars=() v
  for v in "$@"; do vars+=(-v "$v"); done
  psql -X -q -At -v ON_ERROR_STOP=1 "${vars[@]}" -d "$conn" <<<"$sql"
}

PG_CONN= # a connection string that works (maintenance db, else the URL's own db)
pg_ok() {
  local c
  for c in "$(pg_url postgres)" "$DATABASE_URL"; do
    if psql_q "$c" 'select 1' >/dev/null 2>&1; then PG_CONN=$c; return 0; fi
  done
  return 1
}

pg_isready_local() {
  local args=(-q -p "$PG_PORT")
  [[ -n $PG_HOST ]] && args+=(-h "$PG_HOST")
  have pg_isready || return 2
  pg_isready "${args[@]}"
}

pg_default_major() {
  local d m=""
  for d in /usr/lib/postgresql/*/bin/postgres; do
    [[ -x $d ]] || continue
    d=${d%/bin/postgres}; d=${d##*/}
    [[ -z $m || $d -gt $m ]] && m=$d
  done
  printf '%s' "${NEWSCRAWL_PG_MAJOR:-${m:-15}}"
}

ensure_postgres() {
  pg_parse
  need_psql
  if pg_ok; then PG_STATUS="ok (${PG_HOST:-socket}:$PG_PORT)"; return; fi
  is_local_host "$PG_HOST" || die "PostgreSQL at $PG_HOST:$PG_PORT is not reachable with DATABASE_URL (not local: not installing anything)"
  no_install && die "PostgreSQL at ${PG_HOST:-socket}:$PG_PORT is not reachable (NEWSCRAWL_NO_INSTALL=1)"
  take_lock
  pg_ok && { PG_STATUS="ok (${PG_HOST:-socket}:$PG_PORT)"; return; }

  if pg_isready_local; then
    # A server answers, yet DATABASE_URL cannot log in: that is configuration, not absence.
    psql_q "$(pg_url postgres)" 'select 1' >&2 || true
    die "PostgreSQL on port $PG_PORT is up but DATABASE_URL cannot connect (see the error above)"
  fi

  local major fresh=0
  major=$(pg_default_major)
  if [[ ! -x /usr/lib/postgresql/$major/bin/postgres ]] || ! have pg_ctlcluster; then
    apt_install "postgresql-$major" postgresql-common
    fresh=1
  fi
  need_root "start PostgreSQL"

  # the cluster that listens on our port, else create one
  local ver name cluster_line
  cluster_line=$(pg_lsclusters -h 2>/dev/null | awk -v p="$PG_PORT" '$3 == p { print $1, $2; exit }')
  if [[ -z $cluster_line ]]; then
    local cname=main
    [[ -d /etc/postgresql/$major/main ]] && cname=newscrawl$PG_PORT
    log "creating PostgreSQL $major cluster '$cname' on port $PG_PORT"
    run_logged "pg_createcluster" as_root pg_createcluster "$major" "$cname" -p "$PG_PORT"
    cluster_line="$major $cname"; fresh=1
  fi
  read -r ver name <<<"$cluster_line"

  if [[ $fresh == 1 ]]; then
    # A cluster this script created: let local TCP clients in without a password, the way
    # the URL (no password) expects. Development machines only, loopback only.
    local hba=/etc/postgresql/$ver/$name/pg_hba.conf
    if [[ -f $hba ]] && ! grep -q '^# newscrawl: local trust' "$hba"; then
      log "allowing passwordless loopback TCP logins in $hba"
      as_root sed -i '1i # newscrawl: local trust (added by scripts/services.sh)\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    fi
  fi

  log "starting PostgreSQL cluster $ver/$name"
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start </dev/null >>"$APT_LOG" 2>&1 || true
  local i
  for ((i = 0; i < 60; i++)); do
    if pg_ok; then PG_STATUS="ok (${PG_HOST:-socket}:$PG_PORT, started)"; return; fi
    sleep 0.5
  done
  die "PostgreSQL cluster $ver/$name did not come up for DATABASE_URL (see /var/log/postgresql/postgresql-$ver-$name.log)"
}

# ---------------------------------------------------------------- pgvector

vector_version() {
  psql_q "$PG_CONN" "select coalesce(default_version, '?') from pg_available_extensions where name = 'vector'" 2>/dev/null
}

# debian_mirror: print "URI<TAB>SIGNED-BY" of the Debian main archive this machine uses,
# read from its own apt sources (deb822 .sources, then one-line .list / sources.list).
debian_mirror() {
  local codename f found=""
  # shellcheck disable=SC1091
  codename=$( . /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")
  [[ -n $codename ]] || codename=bookworm
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f && $f != "$SRC_LIST" && $f != */newscrawl-* ]] || continue
    found=$(awk -v cn="$codename" '
      BEGIN { RS = ""; FS = "\n" }
      {
        types = uris = suites = comps = sb = ""; en = "yes"
        for (i = 1; i <= NF; i++) {
          line = $i
          if (line ~ /^[ \t]*#/ || line ~ /^[ \t]/) continue
          key = tolower(line); sub(/:.*/, "", key)
          val = line; sub(/^[^:]*:[ \t]*/, "", val)
          if (key == "types") types = val
          else if (key == "uris") uris = val
          else if (key == "suites") suites = val
          else if (key == "components") comps = val
          else if (key == "signed-by") sb = val
          else if (key == "enabled") en = tolower(val)
        }
        if (en == "no" || (" " types " ") !~ / deb / || (" " comps " ") !~ / main /) next
        n = split(suites, s, /[ \t]+/); ok = 0
        for (j = 1; j <= n; j++) if (s[j] == cn) ok = 1
        if (!ok) next
        split(uris, u, /[ \t]+/)
        if (u[1] ~ /^cdrom:/) next
        print u[1] "\t" sb; exit
      }' "$f")
    [[ -n $found ]] && { printf '%s\n' "$found"; return 0; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    found=$(awk -v cn="$codename" '
      $1 == "deb" {
        i = 2; sb = ""
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) {
            if ($i ~ /^\[?signed-by=/) { sb = $i; sub(/^\[?signed-by=/, "", sb); sub(/\]$/, "", sb) }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        uri = $i; suite = $(i + 1); main = 0
        for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
        if (suite == cn && main && uri !~ /^cdrom:/) { print uri "\t" sb; exit }
      }' "$f")
    [[ -n $found ]] && { printf '%s\n' "$found"; return 0; }
  done
  return 1
}

add_source_entry() {
  local mirror uri sb
  mirror=$(debian_mirror) || die "cannot find the Debian mirror in this machine's apt sources (looked for a 'deb' entry of the main archive)"
  uri=${mirror%%$'\t'*}; sb=${mirror#*$'\t'}
  [[ -n $sb ]] || sb=/usr/share/keyrings/debian-archive-keyring.gpg
  local want
  want=$(printf '%s\n' \
    "# Written by newscrawl scripts/services.sh: Debian $PGVECTOR_SUITE SOURCE packages only (deb-src)," \
    "# so that pgvector can be built from source; no $PGVECTOR_SUITE binaries are ever installed." \
    "# The mirror is the one this machine's own apt sources use." \
    "Types: deb-src" \
    "URIs: $uri" \
    "Suites: $PGVECTOR_SUITE" \
    "Components: main" \
    "Signed-By: $sb")
  if [[ ! -f $SRC_LIST ]] || [[ $(cat "$SRC_LIST") != "$want" ]]; then
    log "adding deb-src $PGVECTOR_SUITE entry $SRC_LIST (mirror $uri)"
    printf '%s\n' "$want" | as_root tee "$SRC_LIST" >/dev/null
    APT_UPDATED=0
  fi
}

# pgvector_from_binary MAJOR: install a packaged build when some configured binary source
# has one (a newer Debian, or the PGDG repository). Bookworm's own archive has none.
pgvector_from_binary() {
  local pkg=postgresql-$1-pgvector cand
  cand=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2; exit }')
  [[ -n $cand && $cand != '(none)' ]] || return 1
  apt_install "$pkg"
}

pgvector_from_source() {
  local major=$1 pgc=/usr/lib/postgresql/$1/bin/pg_config
  apt_install "postgresql-server-dev-$major" build-essential dpkg-dev
  [[ -x $pgc ]] || die "$pgc not found after installing postgresql-server-dev-$major"

  local dir=$BUILD_DIR/pgvector
  as_root rm -rf "$dir"
  as_root mkdir -p "$dir"
  # let apt's unprivileged download user write there (else apt warns and downloads as root)
  id _apt >/dev/null 2>&1 && as_root chown _apt "$dir"
  log "apt-get source pgvector/$PGVECTOR_SUITE into $dir"
  run_logged "apt-get source pgvector/$PGVECTOR_SUITE" \
    in_dir "$dir" as_root apt-get source "pgvector/$PGVECTOR_SUITE"
  local src
  src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
  [[ -n $src && -f $src/Makefile ]] || die "no unpacked pgvector source under $dir"
  log "building $(basename "$src") against PostgreSQL $major"
  # OPTFLAGS="": pgvector defaults to -march=native; a portable build keeps working if
  # this disk is later run on another CPU.
  run_logged "building pgvector" as_root make -C "$src" -j"$(nproc)" OPTFLAGS="" PG_CONFIG="$pgc"
  run_logged "installing pgvector" as_root make -C "$src" install OPTFLAGS="" PG_CONFIG="$pgc"
}

verify_vector() {
  local db=newscrawl_pgvector_check
  psql_q "$PG_CONN" 'drop database if exists :"db"' "db=$db" >/dev/null
  psql_q "$PG_CONN" 'create database :"db"' "db=$db" >/dev/null
  local out rc=0
  out=$(psql_q "$(pg_url "$db")" "create extension vector; select '[1,2,3]'::vector <-> '[1,2,5]'::vector") || rc=$?
  psql_q "$PG_CONN" 'drop database if exists :"db"' "db=$db" >/dev/null || true
  [[ $rc == 0 && $out == 2 ]] || die "CREATE EXTENSION vector failed in a scratch database (got '$out')"
}

ensure_pgvector() {
  local v
  v=$(vector_version || true)
  if [[ -n $v ]]; then VECTOR_STATUS="ok ($v)"; return; fi
  is_local_host "$PG_HOST" || die "the PostgreSQL server at $PG_HOST:$PG_PORT has no pgvector extension (remote: install it there)"
  no_install && die "pgvector is not installed (NEWSCRAWL_NO_INSTALL=1)"
  take_lock
  v=$(vector_version || true)
  if [[ -n $v ]]; then VECTOR_STATUS="ok ($v)"; return; fi
  need_root "install pgvector"

  local num major
  num=$(psql_q "$PG_CONN" 'show server_version_num') || die "cannot read server_version_num"
  major=$((num / 10000))
  log "pgvector is missing on PostgreSQL $major: installing it"
  local t0=$SECONDS
  add_source_entry # deb-src only; one apt-get update then serves both ways below
  [[ $APT_UPDATED == 1 ]] || apt_update
  pgvector_from_binary "$major" || pgvector_from_source "$major"
  v=$(vector_version || true)
  [[ -n $v ]] || die "pgvector installed, yet the server does not list the 'vector' extension (is the running server PostgreSQL $major?)"
  verify_vector
  VECTOR_STATUS="ok ($v, installed in $((SECONDS - t0))s)"
}

# ---------------------------------------------------------------- databases

ensure_db() {
  local db=$1
  valid_db_name "$db" || die "bad database name '$db'"
  local exists
  exists=$(psql_q "$PG_CONN" "select 1 from pg_database where datname = :'db'" "db=$db") \
    || die "cannot list databases"
  if [[ -z $exists ]]; then
    if ! psql_q "$PG_CONN" 'create database :"db"' "db=$db" 2>/dev/null; then
      # lost a race with a concurrent run? then it exists now
      exists=$(psql_q "$PG_CONN" "select 1 from pg_database where datname = :'db'" "db=$db")
      [[ -n $exists ]] || { psql_q "$PG_CONN" 'create database :"db"' "db=$db" >&2; die "cannot create database $db"; }
    else
      log "created database $db"
    fi
  fi
  local url has
  url=$(pg_url "$db")
  has=$(psql_q "$url" "select 1 from pg_extension where extname = 'vector'") || die "cannot connect to database $db"
  if [[ -z $has ]]; then
    if ! psql_q "$url" 'create extension if not exists vector' >/dev/null 2>&1; then
      # a concurrent run may have won the race; else show the error
      has=$(psql_q "$url" "select 1 from pg_extension where extname = 'vector'")
      [[ -n $has ]] || { psql_q "$url" 'create extension if not exists vector' >&2; die "CREATE EXTENSION vector failed in $db"; }
    fi
  fi
  DB_STATUS+="${DB_STATUS:+, }$db"
}

# ---------------------------------------------------------------- main

REDIS_STATUS='' PG_STATUS='' VECTOR_STATUS='' DB_STATUS=''

cmd_ensure() {
  ensure_redis
  ensure_postgres
  ensure_pgvector
  local dbs=("$@") db
  [[ $PG_DB != postgres && $PG_DB != template* ]] && dbs+=("$PG_DB")
  local seen=" "
  for db in "${dbs[@]}"; do
    [[ $seen == *" $db "* ]] && continue
    seen+="$db "
    ensure_db "$db"
  done
  log "redis $REDIS_STATUS; postgres $PG_STATUS; pgvector $VECTOR_STATUS${DB_STATUS:+; databases: $DB_STATUS}"
}

cmd_status() {
  local bad=0 v
  redis_parse; pg_parse
  if redis_ok; then log "redis: ok ($R_HOST:$R_PORT)"; else log "redis: NOT reachable ($R_HOST:$R_PORT)"; bad=1; fi
  if have psql && pg_ok; then
    log "postgres: ok (${PG_HOST:-socket}:$PG_PORT)"
    v=$(vector_version || true)
    if [[ -n $v ]]; then log "pgvector: ok ($v)"; else log "pgvector: NOT installed"; bad=1; fi
  else
    log "postgres: NOT reachable (${PG_HOST:-socket}:$PG_PORT)"; bad=1
  fi
  return $bad
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; }

cmd_apt_install() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  no_install && die "missing packages ${missing[*]} (NEWSCRAWL_NO_INSTALL=1)"
  take_lock
  apt_install "${missing[@]}"
}

cmd_pgvector_build() {
  [[ ${1:-} =~ ^[0-9]+$ ]] || die "usage: services.sh pgvector-build MAJOR"
  take_lock
  add_source_entry
  pgvector_from_source "$1"
}

cmd_mirror() {
  local mirror
  mirror=$(debian_mirror) || die "cannot find the Debian mirror in this machine's apt sources"
  printf '%s\n' "${mirror%%$'\t'*}"
}

cmd_cluster_start() {
  local dir=${1:-} base=${2:-17000} i port addrs=() url
  [[ -n $dir ]] || die "usage: services.sh cluster-start DIR [PORT]"
  [[ $base =~ ^[0-9]+$ ]] || die "cluster-start: PORT must be a number"
  have redis-server || apt_install redis-server
  mkdir -p "$dir"
  for i in 0 1 2 3 4 5; do
    port=$((base + i))
    mkdir -p "$dir/$port"
    redis-cli -p "$port" ping >/dev/null 2>&1 && die "cluster-start: 127.0.0.1:$port is taken"
    redis-server --port "$port" --bind 127.0.0.1 --dir "$dir/$port" --daemonize yes \
      --pidfile "$dir/$port/pid" --logfile "$dir/$port/log" --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout 2000
    addrs+=("127.0.0.1:$port")
  done
  for i in $(seq 50); do
    local up=0
    for port in $(seq "$base" $((base + 5))); do redis-cli -p "$port" ping >/dev/null 2>&1 && up=$((up + 1)); done
    [[ $up -eq 6 ]] && break
    sleep 0.1
  done
  redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 ||
    die "redis-cli --cluster create failed (see $dir/create.log)"
  for i in $(seq 100); do # every slot served, every replica attached
    redis-cli -p "$base" cluster info 2>/dev/null | grep -q 'cluster_state:ok' &&
      [[ $(redis-cli -p "$base" cluster nodes | grep -c slave) -eq 3 ]] && break
    sleep 0.2
  done
  redis-cli -p "$base" cluster info | grep -q 'cluster_state:ok' || die "the cluster in $dir did not reach cluster_state:ok"
  url="redis://127.0.0.1:$base"
  for port in $(seq $((base + 1)) $((base + 2))); do url+="$([[ $url == *\?* ]] && echo '&' || echo '?')addr=127.0.0.1:$port"; done
  log "redis cluster: 3 masters + 3 replicas on 127.0.0.1:$base-$((base + 5)), data in $dir"
  printf '%s\n' "$url"
}

cmd_cluster_stop() {
  local dir=${1:-} pidfile
  [[ -n $dir && -d $dir ]] || die "usage: services.sh cluster-stop DIR"
  for pidfile in "$dir"/*/pid; do
    [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  log "redis cluster in $dir stopped"
}

case ${1:-} in
  cluster-start) shift; cmd_cluster_start "$@" ;;
  cluster-stop) shift; cmd_cluster_stop "$@" ;;
  ensure|createdb) shift; cmd_ensure "$@" ;;
  status) cmd_status ;;
  apt-install) shift; cmd_apt_install "$@" ;;
  pgvector-build) shift; cmd_pgvector_build "$@" ;;
  mirror) cmd_mirror ;;
  -h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
