#!/usr/bin/env bash
# Run by `npm test` before the suite (the `pretest` script): the console's browser tests drive
# Debian's Chromium (test/console-browser.ts). Installed from Debian's packages when missing and
# the user may; otherwise the command to run is printed and the suite does not start.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Chromium from Debian's packages for the console's browser tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The console's browser tests need Chromium at /usr/bin/chromium: sudo apt-get install -y chromium" >&2
exit 1
