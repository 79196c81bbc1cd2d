#!/usr/bin/env bash
# Debian packages the project needs on a development or CI machine:
# card artwork for synthetic training data and the table simulator, the SVG renderer,
# fonts for rendering text (Chinese too), wallpapers used as real table backgrounds, and
# Chromium for the browser tests, PostgreSQL for the club server's storage tests.
# Idempotent: installs only what is missing. Needs root (or sudo) when something is missing.
# `system-deps.sh demo`: only what `make demo` films its table with (one card design, the SVG
# renderer).
set -euo pipefail
PACKAGES=(gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core gnome-backgrounds
          chromium fonts-noto-cjk postgresql)
if [ "${1:-}" = "demo" ]; then
    PACKAGES=(gnome-cards-data librsvg2-bin)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing system packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "run as root: apt-get install ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
