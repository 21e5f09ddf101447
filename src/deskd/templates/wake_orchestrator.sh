#!/usr/bin/env bash
# wake_orchestrator.sh: the cron driver for `deskd tick` (docs/contract.md "Scheduling the tick").
#
# Cron runs commands with a bare environment (PATH=/usr/bin:/bin, sometimes no HOME) in the
# user's home folder. This script makes one tick run against the right desk anyway:
#
#   - DESKD_HOME is required: the desk folder. Without it the script refuses (a line on
#     stderr, exit 2) rather than tick whatever folder cron happens to start in.
#   - PATH starts with the folder holding this environment's `deskd` (DESKD_BIN, else found
#     beside this script: a virtualenv's bin/), then the caller's PATH, then the usual
#     /usr/local/bin:/usr/bin:/bin. HOME is set when cron left it unset.
#   - It cds to DESKD_HOME and runs `deskd tick`, adding --execute only when
#     DESKD_WAKE_EXECUTE=1 (otherwise a dry run: nothing is written or launched).
#   - deskd's output is appended to $DESKD_LOG_DIR/tick.log (default $DESKD_HOME/logs);
#     the tick writes its own one-line summary there too. The exit code is deskd's; a
#     non-zero one is also logged ("… wake_orchestrator: deskd tick exited N").
#
# `deskd cron-line` prints the exact crontab line for a desk, with absolute paths:
#   * * * * * DESKD_HOME=/srv/desk DESKD_BIN=/opt/deskd/.venv/bin /path/to/wake_orchestrator.sh
# Add DESKD_WAKE_EXECUTE=1 to that line once the dry-run log looks right.
set -u

me="wake_orchestrator"

if [ -z "${DESKD_HOME:-}" ]; then
    echo "$me: DESKD_HOME is not set: refusing to tick an unknown folder (set DESKD_HOME=/path/to/desk on the crontab line; see \`deskd cron-line\`)" >&2
    exit 2
fi
if [ ! -d "$DESKD_HOME" ]; then
    echo "$me: DESKD_HOME=$DESKD_HOME is not a folder (create the desk with \`deskd init\`)" >&2
    exit 2
fi

if [ -z "${HOME:-}" ]; then
    HOME="$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)"
    [ -n "$HOME" ] || HOME="$DESKD_HOME"
fi
export HOME

bin="${DESKD_BIN:-}"
if [ -z "$bin" ]; then
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    # A checkout (scripts/cron/ -> .venv/bin), an editable install (src/deskd/templates/
    # -> .venv/bin) or a virtualenv's site-packages (lib/pythonX.Y/site-packages/deskd/
    # templates/ -> bin).
    for guess in "$here/../../.venv/bin" "$here/../../../.venv/bin" "$here/../../../../../bin"; do
        if [ -x "$guess/deskd" ]; then
            bin="$(cd "$guess" && pwd)"
            break
        fi
    done
fi
if [ -n "$bin" ] && [ ! -x "$bin/deskd" ]; then
    echo "$me: no deskd executable in DESKD_BIN=$bin (see \`deskd cron-line\` for the right folder)" >&2
    exit 127
fi

PATH="${bin:+$bin:}${PATH:+$PATH:}/usr/local/bin:/usr/bin:/bin"
export PATH DESKD_HOME

deskd_exe="$(command -v deskd || true)"
if [ -z "$deskd_exe" ]; then
    echo "$me: no deskd executable found (PATH=$PATH); set DESKD_BIN to the folder holding deskd (see \`deskd cron-line\`)" >&2
    exit 127
fi

cd "$DESKD_HOME" || {
    echo "$me: cannot cd to DESKD_HOME=$DESKD_HOME" >&2
    exit 2
}

log_dir="${DESKD_LOG_DIR:-$DESKD_HOME/logs}"
mkdir -p "$log_dir" 2>/dev/null
log="$log_dir/tick.log"

args=(tick)
if [ "${DESKD_WAKE_EXECUTE:-0}" = "1" ]; then
    args+=(--execute)
fi

if [ -d "$log_dir" ] && [ -w "$log_dir" ]; then
    "$deskd_exe" "${args[@]}" >>"$log" 2>&1
    rc=$?
    # A failed run says so in the log, with its exit code (`deskd cron-line --check` reads it).
    if [ "$rc" -ne 0 ]; then
        echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $me: deskd tick exited $rc" >>"$log"
    fi
    exit "$rc"
else
    echo "$me: cannot write $log; deskd's output goes to stderr" >&2
    "$deskd_exe" "${args[@]}"
fi
exit $?
