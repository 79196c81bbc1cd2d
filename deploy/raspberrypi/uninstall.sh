#!/usr/bin/env bash
# Remove what install.sh put on this machine: the service, the program and its models.
# The recorded matches, the calibration and the config (with its referee PIN) stay, so a
# later install.sh carries on where this box left off; --purge removes them too, and the
# ddz-table user.
#
#   sudo deploy/raspberrypi/uninstall.sh            # keep /var/lib/ddz-table and /etc/ddz-table
#   sudo deploy/raspberrypi/uninstall.sh --purge    # remove everything (比赛记录也会删除)
set -euo pipefail

PREFIX=""
DRY=0 PURGE=0 SYSTEMCTL=1
SERVICE=ddz-table
SVC_USER=ddz-table

while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) PREFIX=$(realpath -m "$2"); shift 2 ;;
        --dry-run) DRY=1; shift ;;
        --purge) PURGE=1; shift ;;
        --no-systemctl) SYSTEMCTL=0; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "uninstall.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

R="$PREFIX"
say() { printf '==> %s\n' "$*"; }
run() {
    if [[ $DRY == 1 ]]; then printf '+ %s\n' "$*"; else "$@"; fi
}

if [[ -z "$PREFIX" && $DRY == 0 && $(id -u) != 0 ]]; then
    echo "uninstall.sh: run it with sudo (or give --prefix DIR / --dry-run)" >&2
    exit 1
fi

UNIT="$R/etc/systemd/system/$SERVICE.service"
if [[ $SYSTEMCTL == 1 ]] && command -v systemctl >/dev/null && [[ -e "$UNIT" ]]; then
    say "stop and disable $SERVICE / 停止服务"
    if [[ -n "$PREFIX" ]]; then
        run systemctl --root="$PREFIX" disable "$SERVICE.service"
    else
        run systemctl disable --now "$SERVICE.service" || true
    fi
fi
say "remove the service and the program / 删除服务和程序"
run rm -f "$UNIT" "$R/etc/systemd/system/multi-user.target.wants/$SERVICE.service"
if [[ -z "$PREFIX" && $SYSTEMCTL == 1 ]] && command -v systemctl >/dev/null; then
    run systemctl daemon-reload
fi
if [[ -L "$R/usr/local/bin/ddz-table" ]]; then run rm -f "$R/usr/local/bin/ddz-table"; fi
run rm -rf "$R/opt/ddz-table"

if [[ $PURGE == 1 ]]; then
    say "purge: the matches, calibration and config / 删除比赛记录、标定和配置"
    run rm -rf "$R/var/lib/ddz-table" "$R/etc/ddz-table"
    if [[ -z "$PREFIX" ]] && id -u "$SVC_USER" >/dev/null 2>&1; then run userdel "$SVC_USER"; fi
else
    say "kept /var/lib/ddz-table (matches, calibration) and /etc/ddz-table (config, PIN) / 已保留记录和配置"
    say "remove them too with: sudo deploy/raspberrypi/uninstall.sh --purge"
fi
