#!/usr/bin/env bash
# Fetches the Stanford bunny from the npm package "bunny" into data/bunny.obj (rotated from
# the package's +Y up to Tactus' +Z up). Idempotent: does nothing when the file exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/data/bunny.obj
if [[ -s "$out" ]]; then
    exit 0
fi
if ! command -v npm > /dev/null 2>&1 || ! command -v node > /dev/null 2>&1; then
    echo "fetch_data: npm and node are needed to fetch the bunny (skipping)" >&2
    exit 0
fi
mkdir -p "$root/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack bunny --silent > /dev/null 2>&1 && tar xzf bunny-*.tgz); then
    echo "fetch_data: could not fetch the npm package 'bunny' (offline?); data/bunny.obj not created" >&2
    exit 0
fi
node - "$tmp/package" "$out.tmp" <<'JS'
const fs = require("fs");
const [dir, out] = process.argv.slice(2);
const bunny = require(dir);
const lines = ["# Stanford bunny (npm package 'bunny'), +Z up"];
for (const [x, y, z] of bunny.positions) lines.push(`v ${x} ${-z} ${y}`);
for (const [a, b, c] of bunny.cells) lines.push(`f ${a + 1} ${b + 1} ${c + 1}`);
fs.writeFileSync(out, lines.join("\n") + "\n");
JS
mv "$out.tmp" "$out"
echo "fetch_data: wrote $out"
