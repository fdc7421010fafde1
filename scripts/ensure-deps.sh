#!/usr/bin/env bash
# Installs what Parla needs and is missing: Debian packages (speech engines, and for tests an independent
# audio decoder) and npm packages. Idempotent and quick when everything is present.
#   scripts/ensure-deps.sh          what the server needs
#   scripts/ensure-deps.sh --test   plus what the test suite needs
set -euo pipefail
cd "$(dirname "$0")/.."

# ffmpeg: the aac and flac encoders of the OpenAI surface (a streamed child process; see docs/decisions.md).
runtime_pkgs=(festival festvox-us-slt-hts pocketsphinx-en-us libpocketsphinx3 libsphinxbase3 bzip2 ffmpeg)
# postgresql: the tests start a throwaway server of their own (test/support/postgres/); Debian's default
# cluster, if the package creates and starts one, is never used. nginx-light: the load balancer of the
# multi-node tests, run in the foreground from a temp folder (the package's own service is never used).
test_pkgs=(pocketsphinx chromium postgresql nginx-light)
pkgs=("${runtime_pkgs[@]}")
[[ "${1:-}" == "--test" ]] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "parla: installing Debian packages: ${missing[*]}" >&2
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  # Another apt (the other Parla command started at the same time, unattended-upgrades) may hold apt's locks:
  # wait for it rather than fail. `install` waits by itself with DPkg::Lock::Timeout; `update` ignores that
  # option for the lists lock, so it is retried while the only complaint is a held lock.
  for ((try = 1; ; try++)); do
    out=$($sudo apt-get update -qq 2>&1) && break
    if ! grep -q "Could not get lock" <<<"$out" || ((try >= 120)); then echo "$out" >&2; exit 1; fi
    ((try == 1)) && echo "parla: waiting for another apt to finish" >&2
    sleep 5
  done
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# npm packages: reinstall only when package-lock.json changed since the last install.
stamp=node_modules/.parla-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "parla: installing npm packages" >&2
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

# The browser playground (web/ → dist/web): rebuilt only when its sources changed (scripts/build-web.ts checks).
node_modules/.bin/tsx scripts/build-web.ts
