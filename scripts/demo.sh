#!/usr/bin/env bash
# Sets up and runs `canopy demo`; with --desktop, installs what the desktop
# demo needs too (Xvfb, D-Bus, AT-SPI, mousepad).
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [ "$arg" = --desktop ]; then export CANOPY_WITH_DESKTOP=1; fi
done
source scripts/deps.sh
go build -o bin/canopy ./cmd/canopy
exec bin/canopy demo "$@"
