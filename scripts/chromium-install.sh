#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing (the browser test of /docs drives it with
# playwright-core: test/e2e/docs-browser.test.ts). Idempotent; prints the browser's path.
set -euo pipefail
BROWSER=/usr/bin/chromium
if [ ! -x "$BROWSER" ]; then
  echo "installing chromium from Debian" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
fi
echo "$BROWSER"
