#!/usr/bin/env bash
# MCP conformance, server side: the official harness (@modelcontextprotocol/conformance
# 0.2.0-alpha.12) against `switchboard serve --http` in front of the project's test
# server (tests/support/mcp_test_server, exposed as `t`), one scenario at a time.
#
# Usage: tests/conformance/serve.sh [SCENARIO...]   (default: every line of serve.scenarios)
#
# serve.scenarios has one scenario per line, `#` starts a comment:
#     <scenario> <mode>
#   required  a failure fails the run
#   na        not applicable: the scenario calls the harness's own fixture (tools such as
#             `test_simple_text`, prompts, `test://` resources) that a gateway in front of
#             another server does not have; run and reported only
#   xfail     known to fail for the reason in the comment above it
# Every server scenario the harness lists must be in serve.scenarios.
#
# Env: SWITCHBOARD_BIN_DIR  where `switchboard` and `switchboard-test-mcp-server` are
#                           (default: build them once into ${CARGO_TARGET_DIR:-target}/debug)
#      CONFORMANCE_TIMEOUT_MS  per scenario (default 30000)
# Exit: 0 when every required scenario passed, 1 otherwise. Logs: target/conformance/serve-logs.
set -euo pipefail
cd "$(dirname "$0")/../.."

TIMEOUT_MS=${CONFORMANCE_TIMEOUT_MS:-30000}
HARNESS=0.2.0-alpha.12
# shellcheck source=tests/conformance/setup.sh
source tests/conformance/setup.sh
cli=$(harness_cli "$HARNESS")

if [[ -z "${SWITCHBOARD_BIN_DIR:-}" ]]; then
  cargo build --quiet --bins --features test-server
  SWITCHBOARD_BIN_DIR="${CARGO_TARGET_DIR:-$PWD/target}/debug"
fi
bin="$SWITCHBOARD_BIN_DIR/switchboard"

missing=()
while read -r name; do
  grep -Eq "^$name[[:space:]]" tests/conformance/serve.scenarios || missing+=("$name")
done < <("$NODE" "$cli" list --server 2>/dev/null | sed -n 's/^  - \([^ ]*\) \[.*\]$/\1/p')
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'server scenario not in tests/conformance/serve.scenarios: %s\n' "${missing[@]}" >&2
  exit 1
fi

# A workspace of its own: the test server as `t`, the folder trusted, its own home.
work=$(mktemp -d)
gateway=""
cleanup() {
  [[ -n "$gateway" ]] && kill "$gateway" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
printf '[servers.t]\ncommand = "%s"\n' "$SWITCHBOARD_BIN_DIR/switchboard-test-mcp-server" \
  >"$work/switchboard.toml"
# In a subshell that becomes the program (exec), so `$!` is the gateway's own pid.
sb() { cd "$work" && exec env -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_DATA_HOME HOME="$work" "$@"; }
(sb "$bin" trust --yes >/dev/null)
(sb "$bin" serve --http 127.0.0.1:0 2>"$work/serve.err" >/dev/null </dev/null) &
gateway=$!
url=""
for _ in $(seq 300); do # the first stderr line is the URL (within 30 s)
  url=$(head -n1 "$work/serve.err" 2>/dev/null || true)
  [[ "$url" == http://* ]] && break
  kill -0 "$gateway" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
  sleep 0.1
done
[[ "$url" == http://* ]] || { echo "serve --http printed no URL" >&2; exit 1; }
echo "switchboard serve --http at $url"

logs="$ROOT/serve-logs"
mkdir -p "$logs"
declare -A passed total
failed_required=()
while read -r scenario mode; do
  [[ -z "$scenario" || "$scenario" == \#* ]] && continue
  if [[ $# -gt 0 && ! " $* " == *" $scenario "* ]]; then continue; fi
  log="$logs/$scenario.log"
  total[$mode]=$(( ${total[$mode]:-0} + 1 ))
  status=0
  "$NODE" "$cli" server --url "$url" --scenario "$scenario" --timeout "$TIMEOUT_MS" \
    -o "$ROOT/serve-results" >"$log" 2>&1 || status=$?
  warnings=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -cE '^\S+Z \[[^]]*\] WARNING' || true)
  note=""
  [[ "$warnings" -gt 0 ]] && note=" ($warnings warnings)"
  if [[ $status -eq 0 ]]; then
    passed[$mode]=$(( ${passed[$mode]:-0} + 1 ))
    echo "pass  $scenario  ($mode)$note"
    [[ "$mode" == xfail ]] && echo "      (an xfail scenario passes now: make it required)"
  else
    case "$mode" in
      required) echo "FAIL  $scenario  log: $log"; failed_required+=("$scenario") ;;
      na) echo "n/a   $scenario  (needs the harness's fixture)  log: $log" ;;
      *) echo "xfail $scenario  log: $log" ;;
    esac
  fi
done <tests/conformance/serve.scenarios

echo
for mode in $(printf '%s\n' "${!total[@]}" | sort); do
  echo "conformance serve $mode: ${passed[$mode]:-0}/${total[$mode]} passed"
done
if [[ ${#failed_required[@]} -gt 0 ]]; then
  echo "failing required scenarios: ${failed_required[*]}" >&2
  exit 1
fi
