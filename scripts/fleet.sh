#!/usr/bin/env bash
# A local fleet on 127.0.0.1: a tracker and N boards, state in ./.fleet (pid and log files), the
# SQLite file in the working directory.
#   scripts/fleet.sh start [--boards N] [--builders N] [--key KEY] [--port PORT] [--http PORT] [--db PATH|URL]
#                          [--token-file FILE] [--arch x86_64|aarch64] [--tracker HOST:PORT]
# The tracker serves its dashboard and Prometheus /metrics on 127.0.0.1, port --http (default: the
# gRPC port + 1; 0: none).
#   scripts/fleet.sh stop | status
# --arch aarch64 starts boards built for 64-bit ARM (scripts/build.sh --arch aarch64) under qemu-user:
# they report themselves as emulated, and their key (default local-aarch64-emulated) keeps their
# timings apart from real boards'. --tracker adds the boards to a tracker already running (this
# fleet's or another's) instead of starting one.
# Boards that share a host must never time kernels at the same moment: each board's kernels are
# pinned to a CPU of their own (board i to CPU i mod CPUs), and every board holds the host-wide
# timing lock while it times, so timings never overlap even when boards outnumber CPUs. The
# tracker's builds hold the same lock shared, so a build never runs during a timing either.
# --builders N starts N builders (tunefarm-builder, 1 build at a time each, the same lock held shared
# while building): with builders connected the tracker builds nothing itself.
# TUNEFARM_BUILDER_TOKEN_FILE gives them a token (role builder), as TUNEFARM_BOARD_TOKEN_FILE does boards.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build"
state="${TUNEFARM_FLEET_DIR:-$PWD/.fleet}"
cmd="${1:-}"
[ $# -gt 0 ] && shift
host_arch="$(uname -m)"
boards=2 builders=0 key="" port=9190 http_port="" db="$PWD/tunefarm.db" token_file="" arch="$host_arch" tracker=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "fleet.sh: $1 needs a value (see the top of $0)" >&2; exit 2; }
  case "$1" in
    --boards) boards="$2"; shift 2 ;;
    --builders) builders="$2"; shift 2 ;;
    --key) key="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --http) http_port="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --token-file) token_file="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --tracker) tracker="$2"; shift 2 ;;
    *) echo "fleet.sh: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
case "$boards" in ''|*[!0-9]*) echo "fleet.sh: --boards needs a number" >&2; exit 2 ;; esac
case "$builders" in ''|*[!0-9]*) echo "fleet.sh: --builders needs a number" >&2; exit 2 ;; esac
case "$arch" in
  x86_64|aarch64) ;;
  *) echo "fleet.sh: --arch $arch: known are x86_64 and aarch64" >&2; exit 2 ;;
esac

# The board binary for --arch, and what runs it here: directly on its own architecture; under
# qemu-user otherwise, through binfmt when the host has it registered, or named explicitly (and
# then for the measure worker the board starts, too).
board_bin="$bin/rpc_server/tunefarm-rpc-server"
board_runner=()
worker_options=()
emulated=0
if [ "$arch" != "$host_arch" ]; then
  [ "$arch" = aarch64 ] || { echo "fleet.sh: boards for $arch run only on an $arch host" >&2; exit 2; }
  emulated=1
  # qemu-user cannot filter system calls, so the worker cannot confine kernels (docs/threat-model.md).
  worker_options=(--no-sandbox)
  board_bin="$root/build-aarch64/rpc_server/tunefarm-rpc-server"
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    board_runner=(qemu-aarch64-static)
    worker_options+=(--worker-launcher "qemu-aarch64-static")
  fi
fi
[ -n "$key" ] || { [ "$emulated" = 1 ] && key="local-$arch-emulated" || key="local-fleet"; }

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
    if [ -z "$tracker" ] && alive "$state/tracker.pid"; then
      echo "fleet.sh: a fleet is running already ($state); stop it first, or add boards with --tracker" >&2; exit 1
    fi
    if [ "$emulated" = 1 ]; then
      [ -x "$board_bin" ] || "$root/scripts/build.sh" --arch "$arch"
    elif [ ! -x "$bin/tracker/tunefarm-tracker" ] || [ ! -x "$board_bin" ] || [ ! -x "$bin/builder/tunefarm-builder" ]; then
      "$root/scripts/build.sh" tunefarm tunefarm-tracker tunefarm-rpc-server tunefarm-builder
    fi
    mkdir -p "$state"
    if [ -z "$tracker" ]; then
      rm -f "$state/port"
      tracker_args=()
      [ -n "$token_file" ] && tracker_args=(--token-file "$token_file")
      [ -n "$http_port" ] || http_port=$((port + 1))
      [ "$http_port" = 0 ] || tracker_args+=(--http "127.0.0.1:$http_port")
      "$bin/tracker/tunefarm-tracker" --listen "127.0.0.1:$port" --db "$db" --port-file "$state/port" "${tracker_args[@]}" \
        > "$state/tracker.log" 2>&1 &
      echo $! > "$state/tracker.pid"
      for _ in $(seq 300); do [ -f "$state/port" ] && break; alive "$state/tracker.pid" || break; sleep 0.1; done
      if [ ! -f "$state/port" ]; then
        echo "fleet.sh: the tracker did not start; its log:" >&2; cat "$state/tracker.log" >&2; rm -f "$state/tracker.pid"; exit 1
      fi
      tracker="127.0.0.1:$port"
      # A database URL's password stays off the terminal.
      shown_db="$(sed -E 's#^([a-zA-Z]+://[^:/@]*):[^@/]*@#\1:***@#' <<< "$db")"
      echo "fleet: tracker on $tracker (pid $(cat "$state/tracker.pid")), db $shown_db, logs in $state"
      [ "$http_port" = 0 ] || echo "fleet: dashboard on http://127.0.0.1:$http_port/ (Prometheus metrics: http://127.0.0.1:$http_port/metrics)"
    fi
    first_builder=0
    while [ -e "$state/builder-$first_builder.pid" ]; do first_builder=$((first_builder + 1)); done
    builder_logs=()
    for i in $(seq "$first_builder" $((first_builder + builders - 1))); do
      rm -f "$state/builder-$i.log"
      "$bin/builder/tunefarm-builder" --tracker "$tracker" --jobs 1 \
        ${TUNEFARM_BUILDER_TOKEN_FILE:+--token-file "$TUNEFARM_BUILDER_TOKEN_FILE"} > "$state/builder-$i.log" 2>&1 &
      echo $! > "$state/builder-$i.pid"
      builder_logs+=("$state/builder-$i.log")
    done
    cpus="$(nproc)"
    first=0
    while [ -e "$state/board-$first.pid" ]; do first=$((first + 1)); done
    started=()
    for i in $(seq "$first" $((first + boards - 1))); do
      cpu=$((i % cpus))
      rm -f "$state/board-$i.log"
      "${board_runner[@]}" "$board_bin" --tracker "$tracker" --key "$key" --cpus "$cpu" --threads 1 "${worker_options[@]}" \
        ${TUNEFARM_BOARD_TOKEN_FILE:+--token-file "$TUNEFARM_BOARD_TOKEN_FILE"} > "$state/board-$i.log" 2>&1 &
      echo $! > "$state/board-$i.pid"
      started+=("$state/board-$i.log")
    done
    # Ready when every board started here has registered (an emulated one takes a few seconds).
    n=0
    for _ in $(seq 600); do
      n="$(grep -l "registered with" "${started[@]}" 2>/dev/null | wc -l || true)"
      [ "$n" -ge "$boards" ] && break
      sleep 0.1
    done
    what="$arch"
    [ "$emulated" = 1 ] && what="$arch, EMULATED by qemu-user: its timings are its key's alone"
    echo "fleet: $boards board(s) ($what) with key '$key' dialing $tracker, each pinned to its own CPU (board i -> CPU i mod $cpus), 1 thread per kernel;"
    echo "fleet: every board holds the host-wide timing lock /tmp/tunefarm-timing.lock while timing; the tracker builds on CPUs"
    echo "fleet: no board uses, or, when the boards use every CPU, takes turns with their timings (the lock held shared)"
    if [ "$n" -lt "$boards" ]; then echo "fleet.sh: only $n of $boards boards registered; see $state/board-*.log" >&2; exit 1; fi
    if [ "$builders" -gt 0 ]; then
      for _ in $(seq 300); do
        n="$(grep -l "registered as" "${builder_logs[@]}" 2>/dev/null | wc -l || true)"
        [ "$n" -ge "$builders" ] && break
        sleep 0.1
      done
      echo "fleet: $n of $builders builder(s) dialing $tracker (1 build at a time each); the tracker builds only when none can"
      if [ "$n" -lt "$builders" ]; then echo "fleet.sh: see $state/builder-*.log" >&2; exit 1; fi
    fi
    ;;
  stop)
    for f in "$state"/board-*.pid "$state"/builder-*.pid; do [ -e "$f" ] && stop_pidfile "$f"; done
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
    for f in "$state"/board-*.pid "$state"/builder-*.pid; do
      [ -e "$f" ] || continue
      name="$(basename "$f" .pid)"
      if alive "$f"; then echo "$name: running (pid $(cat "$f"))"; else echo "$name: not running"; fi
    done
    if alive "$state/tracker.pid"; then "$bin/cli/tunefarm" devices --tracker "127.0.0.1:$(cat "$state/port")" || true; fi
    ;;
  *)
    echo "usage: scripts/fleet.sh start [--boards N] [--builders N] [--key KEY] [--port PORT] [--db PATH] [--token-file FILE] [--arch ARCH] [--tracker HOST:PORT] | stop | status" >&2
    exit 2
    ;;
esac
