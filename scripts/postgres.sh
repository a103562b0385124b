# shellcheck shell=bash
# A throwaway PostgreSQL for the tests (ST2, issue 20). Source this file,
# then:
#   pg_start   initdb a cluster in a temp dir, start it on a free port of
#              127.0.0.1 (its unix socket in the same dir), and export
#              JARVIS_TEST_POSTGRES_URL, a superuser URL of it
#   pg_stop    stop the cluster and remove its dir
# The server runs as a non-root user (PostgreSQL refuses root): the
# current one, or "postgres" when run as root. Debian's postgresql package
# is installed when no server is (as root, with apt-get), once. Durability
# is off (fsync, synchronous_commit): the data is thrown away.

pg_bin() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

pg_install() {
  if pg_bin >/dev/null; then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL is not installed and cannot be installed here (not root, or no apt-get): install Debian's postgresql package" >&2
    return 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >/dev/null; }
  pg_bin >/dev/null
}

# pg_as runs a command as the cluster's user.
pg_as() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  if command -v runuser >/dev/null; then
    runuser -u postgres -- "$@"
  else
    su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
  fi
}

# pg_free_port prints a port of 127.0.0.1 that nothing listens on.
pg_free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "no free port found for PostgreSQL" >&2
  return 1
}

pg_start() {
  pg_install || return 1
  local bin port
  bin=$(pg_bin) || return 1
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin postgres || return 1
  fi
  PG_TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/jarvis-pg.XXXXXX") || return 1
  export PG_TEST_DIR
  if [ "$(id -u)" = 0 ]; then chown postgres "$PG_TEST_DIR"; fi
  pg_as "$bin/initdb" -D "$PG_TEST_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_TEST_DIR/initdb.log" 2>&1 ||
    pg_as "$bin/initdb" -D "$PG_TEST_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C >"$PG_TEST_DIR/initdb.log" 2>&1 ||
    { cat "$PG_TEST_DIR/initdb.log" >&2; return 1; }
  port=$(pg_free_port) || return 1
  # Three serve replicas with their River pools fit in 300 connections.
  pg_as "$bin/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w -t 60 \
    -o "-p $port -k $PG_TEST_DIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$PG_TEST_DIR/server.log" >&2; return 1; }
  export JARVIS_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') for the tests: $JARVIS_TEST_POSTGRES_URL (in $PG_TEST_DIR)"
}

pg_stop() {
  [ -n "${PG_TEST_DIR:-}" ] || return 0
  local bin
  if bin=$(pg_bin) && [ -f "$PG_TEST_DIR/data/postmaster.pid" ]; then
    pg_as "$bin/pg_ctl" -D "$PG_TEST_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_TEST_DIR"
  unset PG_TEST_DIR JARVIS_TEST_POSTGRES_URL
}
