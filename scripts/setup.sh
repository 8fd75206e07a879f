#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/deps.txt that are missing (checked with
# dpkg -s), running apt-get update first, only when something is missing. Idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=()
while read -r pkg cmd; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    if dpkg -s "$pkg" > /dev/null 2>&1; then continue; fi
    if [[ -n "${cmd:-}" ]] && command -v "$cmd" > /dev/null 2>&1; then continue; fi
    missing+=("$pkg")
done < "$here/deps.txt"
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
echo "setup: installing missing packages: ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo > /dev/null 2>&1; then sudo=(sudo); else
        echo "setup: not root and no sudo; install these packages: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
