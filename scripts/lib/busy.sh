#!/usr/bin/env bash
# Runs a command with one busy process per core beside it (a tight loop each), as on a loaded
# CI machine, and ends them when the command ends, however it ends. Used by `scripts/test
# --busy` for the stages that drive Chromium; run by hand for one browser test:
#   scripts/lib/busy.sh cargo test --locked --test history_e2e
# BUSY_PROCESSES=N sets how many (default: nproc). Exits with the command's status.
set -euo pipefail

if [ $# = 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,6p' "$0"
  [ $# = 0 ] && exit 2 || exit 0
fi

COUNT="${BUSY_PROCESSES:-$(nproc)}"
OWNER=$$
LOADERS=()

stop_loaders() {
  local pid
  for pid in "${LOADERS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${LOADERS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  LOADERS=()
}
trap stop_loaders EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

for _ in $(seq "$COUNT"); do
  # A tight loop that looks up now and then whether this script still runs: a loader left
  # behind by a SIGKILL ends on its own within a moment.
  bash -c 'while kill -0 "$1" 2>/dev/null; do for ((i = 0; i < 200000; i++)); do :; done; done' \
    busy-loader "$OWNER" &
  LOADERS+=("$!")
done
echo "busy: ${#LOADERS[@]} busy processes beside: $*" >&2

# Not exec'd: this shell stays to end the loaders when the command is done.
status=0
"$@" || status=$?
exit "$status"
