#!/usr/bin/env bash
# Installs Debian packages with apt-get (through sudo unless root), quietly:
#   scripts/apt-install.sh PACKAGE...
# The callers check first that what they need is missing.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
else
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
fi
