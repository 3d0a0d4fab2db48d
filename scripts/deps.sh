#!/usr/bin/env bash
# Installs what canopy and its tests need on Debian/Ubuntu: Chromium (the
# browser canopy drives); with CANOPY_WITH_DESKTOP=1 the desktop's parts
# (Xvfb, D-Bus, AT-SPI) and mousepad (the editor of the desktop demo); for
# the tests all of that, GTK apps, gnome-keyring, and python3-doc (a real
# page the tests read), Node.js and the official TypeScript MCP SDK (the MCP client
# of the end-to-end tests) and three real third-party web apps (npm todomvc,
# swagger-ui-dist, jsoneditor, served by internal/thirdparty), which go to
# $CANOPY_NODE_DIR (default ~/.cache/canopy-node), outside the repository.
# Elsewhere it says what is missing and how to get it. Sourced by demo.sh
# and test.sh; safe to run again (it installs only what is missing).
set -euo pipefail

need=()
# installed PKG: the package is installed (dpkg -s also succeeds for a
# removed package whose configuration files are left).
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
chromium_bin=""
for b in "${CANOPY_CHROMIUM:-}" chromium chromium-browser google-chrome google-chrome-stable; do
  if [ -n "$b" ] && command -v "$b" >/dev/null 2>&1; then chromium_bin=$b; break; fi
done
[ -n "$chromium_bin" ] || need+=(chromium)
if [ "${CANOPY_WITH_TEST_DEPS:-0}" = 1 ] && [ ! -d /usr/share/doc/python3-doc/html ]; then
  need+=(python3-doc)
fi
if [ "${CANOPY_WITH_TEST_DEPS:-0}" = 1 ] && ! command -v node >/dev/null 2>&1; then
  need+=(nodejs npm)
fi
if [ "${CANOPY_WITH_TEST_DEPS:-0}" = 1 ] || [ "${CANOPY_WITH_DESKTOP:-0}" = 1 ]; then
  # The desktop: a virtual X display, a session bus, the accessibility bus
  # and the ATK bridge; the tests' GTK apps.
  command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
  command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus)
  [ -x /usr/libexec/at-spi-bus-launcher ] || need+=(at-spi2-core)
  for pkg in libatk-bridge2.0-0 libgtk-4-1; do
    installed "$pkg" || need+=("$pkg")
  done
  # The editor `canopy demo --desktop` opens the saved file in.
  command -v mousepad >/dev/null 2>&1 || need+=(mousepad)
fi
if [ "${CANOPY_WITH_TEST_DEPS:-0}" = 1 ]; then
  command -v zenity >/dev/null 2>&1 || need+=(zenity)
  command -v gtk3-widget-factory >/dev/null 2>&1 || need+=(gtk-3-examples)
  command -v gtk4-widget-factory >/dev/null 2>&1 || need+=(gtk-4-examples)
  command -v xdpyinfo >/dev/null 2>&1 || need+=(x11-utils)
  # The desktop portal: with it on the session bus, Chromium's Save dialog is
  # the portal's (as on GNOME or KDE). apt pulls it in as a Recommends of
  # zenity's dependencies, but not with --no-install-recommends: the tests
  # run the flows with it and without it, so it is installed explicitly.
  installed xdg-desktop-portal-gtk || need+=(xdg-desktop-portal-gtk)
  # The desktop keyring (Secret Service): the credential tests store items
  # in a gnome-keyring-daemon on a private bus.
  command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
  # pdftotext: the print tests read the text of the PDFs canopy saves.
  command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
fi
if ! command -v go >/dev/null 2>&1; then
  echo "canopy: Go is missing: install Go 1.26 or later from https://go.dev/dl/" >&2
  exit 2
fi

if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then
      if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
        echo "canopy: need root or sudo to install: ${need[*]}" >&2; exit 2
      fi
    fi
    echo "canopy: installing ${need[*]} with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "canopy: missing ${need[*]}; this is not a Debian/Ubuntu system, so install them with your package manager" >&2
    echo "        (Chromium or Chrome for the browser; python3-doc only for the tests), or set CANOPY_CHROMIUM=/path/to/chrome" >&2
    exit 2
  fi
fi

if [ "${CANOPY_WITH_TEST_DEPS:-0}" = 1 ]; then
  CANOPY_NODE_DIR=${CANOPY_NODE_DIR:-$HOME/.cache/canopy-node}
  export CANOPY_NODE_DIR
  mcp_sdk=@modelcontextprotocol/sdk@1.32.2
  if [ ! -f "$CANOPY_NODE_DIR/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
    echo "canopy: installing $mcp_sdk into $CANOPY_NODE_DIR" >&2
    mkdir -p "$CANOPY_NODE_DIR"
    npm install --silent --no-audit --no-fund --prefix "$CANOPY_NODE_DIR" "$mcp_sdk" >&2
  fi
  # Real third-party apps the tests and bench/peers drive, served on
  # 127.0.0.1 by internal/thirdparty (which checks these same versions).
  for pkg in todomvc@0.1.1 swagger-ui-dist@5.35.0 jsoneditor@10.4.3; do
    name=${pkg%@*} version=${pkg##*@}
    if ! grep -qs "\"version\": \"$version\"" "$CANOPY_NODE_DIR/node_modules/$name/package.json"; then
      echo "canopy: installing $pkg into $CANOPY_NODE_DIR" >&2
      mkdir -p "$CANOPY_NODE_DIR"
      npm install --silent --no-audit --no-fund --save-exact --prefix "$CANOPY_NODE_DIR" "$pkg" >&2
    fi
  done
fi
