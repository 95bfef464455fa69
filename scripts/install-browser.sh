#!/bin/sh
# Install Debian's Chromium (and its driver) for the browser tests, when it is missing.
# Idempotent and quiet: does nothing when /usr/bin/chromium exists. Needs root (or sudo).
set -eu

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-browser.sh: need root (or sudo) to apt-get install chromium" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser.sh: apt-get not found; install Chromium at /usr/bin/chromium by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends \
    chromium chromium-driver fonts-liberation fonts-dejavu-core >/dev/null

if [ ! -x /usr/bin/chromium ]; then
    echo "install-browser.sh: chromium was installed but /usr/bin/chromium is missing" >&2
    exit 1
fi
echo "install-browser.sh: $(/usr/bin/chromium --version 2>/dev/null)"
