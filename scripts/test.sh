#!/usr/bin/env bash
# Sets up and runs every test: gofmt, go vet, go test -race (the integration
# tests drive a real headless Chromium on pages served on 127.0.0.1/127.0.0.2).
set -euo pipefail
cd "$(dirname "$0")/.."
CANOPY_WITH_TEST_DEPS=1 source scripts/deps.sh
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2; echo "$unformatted" >&2; exit 1
fi
go vet ./...
go test -race -count=1 -timeout 20m ./... "$@"
