#!/usr/bin/env bash
# Installs the MCP servers that bench/peers compares canopy with, and builds
# canopy, into a work folder outside the repository:
#
#	bench/peers/install.sh [DIR]      # DIR defaults to $CANOPY_PEERS_DIR or ~/.cache/canopy-peers
#	go run ./bench/peers -n 5 -dir DIR
#
# Versions are pinned so that tables from different days compare. Browsers
# are not downloaded: every server is pointed at the system Chromium over CDP.
set -euo pipefail

dir=${1:-${CANOPY_PEERS_DIR:-$HOME/.cache/canopy-peers}}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

PLAYWRIGHT_MCP=0.0.83
CHROME_DEVTOOLS_MCP=1.11.0
AGENT_BROWSER=0.41.2

command -v npm >/dev/null || { echo "install.sh: npm is missing (apt-get install npm)" >&2; exit 2; }
command -v chromium >/dev/null || echo "install.sh: warning: chromium is not on PATH (apt-get install chromium)" >&2

mkdir -p "$dir"
# Playwright must not fetch its own browser builds; the bench uses CDP.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export PUPPETEER_SKIP_DOWNLOAD=1
npm install --prefix "$dir" --no-audit --no-fund --save-exact \
	"@playwright/mcp@$PLAYWRIGHT_MCP" \
	"chrome-devtools-mcp@$CHROME_DEVTOOLS_MCP" \
	"agent-browser@$AGENT_BROWSER"

# The bench rebuilds this before each run (unless -canopy is given).
(cd "$repo" && go build -o "$dir/canopy" ./cmd/canopy)
echo "installed into $dir"
