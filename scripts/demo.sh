#!/usr/bin/env bash
# Sets up and runs canopy's main job for now: `canopy demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
go build -o bin/canopy ./cmd/canopy
exec bin/canopy demo "$@"
