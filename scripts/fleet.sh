#!/usr/bin/env bash
# A local fleet on 127.0.0.1: a tracker and N boards, state in ./.fleet (pid and log files), the
# SQLite file in the working directory.
#   scripts/fleet.sh start [--boards N] [--key KEY] [--port PORT] [--db PATH] [--token-file FILE]
#   scripts/fleet.sh stop | status
# Boards that share a host must never time kernels at the same moment: each board's kernels are
# pinned to a CPU of their own (board i to CPU i mod CPUs), and every board holds the host-wide
# timing lock while it times, so timings never overlap even when boards outnumber CPUs. The
# tracker's builds hold the same lock shared, so a build never runs during a timing either.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build"
state="${TUNEFARM_FLEET_DIR:-$PWD/.fleet}"
cmd="${1:-}"
[ $# -gt 0 ] && shift
boards=2 key="local-fleet" port=9190 db="$PWD/tunefarm.db" token_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --boards) boards="$2"; shift 2 ;;
    --key) key="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --token-file) token_file="$2"; shift 2 ;;
    *) echo "fleet.sh: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
case "$boards" in ''|*[!0-9]*) echo "fleet.sh: --boards needs a number" >&2; exit 2 ;; esac

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pidfile() {  # SIGTERM (boards drain, the tracker stops its jobs for a later resume), then SIGKILL
  local f="$1" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

case "$cmd" in
  start)
    if alive "$state/tracker.pid"; then echo "fleet.sh: a fleet is running already ($state); stop it first" >&2; exit 1; fi
    if [ ! -x "$bin/tracker/tunefarm-tracker" ] || [ ! -x "$bin/rpc_server/tunefarm-rpc-server" ]; then
      "$root/scripts/build.sh" tunefarm tunefarm-tracker tunefarm-rpc-server
    fi
    mkdir -p "$state"
    rm -f "$state/port"
    token_args=()
    [ -n "$token_file" ] && token_args=(--token-file "$token_file")
    "$bin/tracker/tunefarm-tracker" --listen "127.0.0.1:$port" --db "$db" --port-file "$state/port" "${token_args[@]}" \
      > "$state/tracker.log" 2>&1 &
    echo $! > "$state/tracker.pid"
    for _ in $(seq 300); do [ -f "$state/port" ] && break; alive "$state/tracker.pid" || break; sleep 0.1; done
    if [ ! -f "$state/port" ]; then
      echo "fleet.sh: the tracker did not start; its log:" >&2; cat "$state/tracker.log" >&2; rm -f "$state/tracker.pid"; exit 1
    fi
    cpus="$(nproc)"
    for i in $(seq 0 $((boards - 1))); do
      cpu=$((i % cpus))
      "$bin/rpc_server/tunefarm-rpc-server" --tracker "127.0.0.1:$port" --key "$key" --cpus "$cpu" --threads 1 \
        ${TUNEFARM_BOARD_TOKEN_FILE:+--token-file "$TUNEFARM_BOARD_TOKEN_FILE"} > "$state/board-$i.log" 2>&1 &
      echo $! > "$state/board-$i.pid"
    done
    # Ready when every board has registered.
    for _ in $(seq 300); do
      n="$(grep -l "registered with" "$state"/board-*.log 2>/dev/null | wc -l || true)"
      [ "$n" -ge "$boards" ] && break
      sleep 0.1
    done
    echo "fleet: tracker on 127.0.0.1:$port (pid $(cat "$state/tracker.pid")), db $db, logs in $state"
    echo "fleet: $boards board(s) with key '$key', each pinned to its own CPU (board i -> CPU i mod $cpus), 1 thread per kernel;"
    echo "fleet: every board holds the host-wide timing lock /tmp/tunefarm-timing.lock while timing; the tracker builds on CPUs"
    echo "fleet: no board uses, or, when the boards use every CPU, takes turns with their timings (the lock held shared)"
    if [ "${n:-0}" -lt "$boards" ]; then echo "fleet.sh: only $n of $boards boards registered; see $state/board-*.log" >&2; exit 1; fi
    ;;
  stop)
    for f in "$state"/board-*.pid; do [ -e "$f" ] && stop_pidfile "$f"; done
    stop_pidfile "$state/tracker.pid"
    rm -f "$state/port"
    echo "fleet: stopped"
    ;;
  status)
    if alive "$state/tracker.pid"; then
      echo "tracker: running (pid $(cat "$state/tracker.pid")) on 127.0.0.1:$(cat "$state/port" 2>/dev/null || echo "?")"
    else
      echo "tracker: not running"
    fi
    for f in "$state"/board-*.pid; do
      [ -e "$f" ] || continue
      name="$(basename "$f" .pid)"
      if alive "$f"; then echo "$name: running (pid $(cat "$f"))"; else echo "$name: not running"; fi
    done
    if alive "$state/tracker.pid"; then "$bin/cli/tunefarm" devices --tracker "127.0.0.1:$(cat "$state/port")" || true; fi
    ;;
  *)
    echo "usage: scripts/fleet.sh start [--boards N] [--key KEY] [--port PORT] [--db PATH] [--token-file FILE] | stop | status" >&2
    exit 2
    ;;
esac
