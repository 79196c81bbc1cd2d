#!/usr/bin/env bash
# Calibrate the box's camera over the printed mat (标定), with the settings of config.toml.
#
#   sudo deploy/raspberrypi/calibrate.sh
#   sudo deploy/raspberrypi/calibrate.sh --corners "x,y x,y x,y x,y"   # markers not found
#
# The service holds the camera, so it is stopped for the minute this takes and started
# again afterwards. A frame is taken with the service's own camera settings (doctor
# --snapshot), the mat's markers are found in it, and the calibration is written where
# config.toml says; calibration-check.png beside it shows the zones drawn on the frame.
set -euo pipefail

CONFIG=/etc/ddz-table/config.toml
DDZ=${DDZ:-/opt/ddz-table/venv/bin/ddz-table}  # another program only for tests
SERVICE=ddz-table
SVC_USER=ddz-table
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --config) CONFIG=$2; shift 2 ;;
        --corners) extra+=(--corners "$2"); shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "calibrate.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
# On the box the camera and the data folder belong to the service user; elsewhere (a PC, the
# tests) there is no such user and everything runs as whoever calls this.
box=0
if id -u "$SVC_USER" >/dev/null 2>&1; then box=1; fi
if [[ $box == 1 && $(id -u) != 0 ]]; then echo "calibrate.sh: run it with sudo" >&2; exit 1; fi
[[ -x "$DDZ" ]] || { echo "calibrate.sh: $DDZ not found: run deploy/raspberrypi/install.sh first" >&2; exit 1; }

get() { "$DDZ" config get "$CONFIG" "$1"; }
calibration=$(get calibration)
seats=$(get seats)
mat=$(get mat)
protocol=$(get protocol)
folder=$(dirname "$calibration")
frame="$folder/calibration-frame.png"
check="$folder/calibration-check.png"
pile=()
[[ $protocol == pile ]] && pile=(--pile)

was_active=0
if command -v systemctl >/dev/null && systemctl is-active --quiet "$SERVICE"; then
    was_active=1
    echo "==> stopping $SERVICE for a minute / 暂停服务"
    systemctl stop "$SERVICE"
fi
restart() { if [[ $was_active == 1 ]]; then echo "==> starting $SERVICE / 重新启动服务"; systemctl start "$SERVICE"; fi; }
trap restart EXIT

as_service() {
    if [[ $box == 1 ]]; then runuser -u "$SVC_USER" -- "$@"; else "$@"; fi
}
echo "==> taking a frame / 拍照 ($(get source))"
rm -f "$frame"  # never calibrate from an old picture
as_service "$DDZ" doctor --config "$CONFIG" --snapshot "$frame" >/dev/null || true
if [[ ! -s "$frame" ]]; then
    echo "calibrate.sh: the camera gave no frame; see: sudo ddz-table doctor" >&2
    exit 1
fi
echo "==> finding the mat / 寻找桌垫 ($seats seats, $mat)"
as_service "$DDZ" calibrate --image "$frame" --seats "$seats" --size "$mat" "${pile[@]}" "${extra[@]}" \
    --out "$calibration" --preview "$check"
# The data folder is the service's own; put copies where the person who ran sudo can open them.
if [[ -n "${SUDO_USER:-}" && "$SUDO_USER" != root ]]; then
    home=$(getent passwd "$SUDO_USER" | cut -d: -f6)
    if [[ -d "$home" ]]; then
        cp "$check" "$home/ddz-calibration-check.png"
        cp "$frame" "$home/ddz-calibration-frame.png"
        chown "$SUDO_USER": "$home/ddz-calibration-check.png" "$home/ddz-calibration-frame.png"
        check="$home/ddz-calibration-check.png"
    fi
fi
cat <<EOF

Done / 完成. Look at $check: every outline must sit on its printed zone.
请打开 $check 检查：每个框都要和桌垫上印的区域重合。
(Raspberry Pi desktop: double-click it in the file manager; or set view = true under
[camera] in $CONFIG and open the site's camera view.)
EOF
