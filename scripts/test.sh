#!/usr/bin/env bash
# Sets up and runs every test: gofmt, go vet, staticcheck, go test -race (the
# integration tests drive a real headless Chromium on pages served on
# 127.0.0.1/127.0.0.2, and a real AT-SPI desktop under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
CANOPY_WITH_TEST_DEPS=1 source scripts/deps.sh
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2; echo "$unformatted" >&2; exit 1
fi
go vet ./...
# staticcheck, pinned: `go run pkg@version` keeps it out of canopy's module
# graph (its own dependencies would raise canopy's golang.org/x versions).
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
go test -race -count=1 -timeout 25m ./... "$@"
