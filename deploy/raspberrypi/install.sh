#!/usr/bin/env bash
# Install (or update) the ddz-table box: packages, a virtual environment with the program,
# the models, a service user, /etc/ddz-table/config.toml, the data folder and a systemd
# service that starts on boot. Safe to run again: it updates the program and keeps the
# config (and its referee PIN), the calibration and every recorded match.
#
#   sudo deploy/raspberrypi/install.sh                      # on the Pi, from the git clone
#   sudo deploy/raspberrypi/install.sh --seats 4 --preset four --source 0
#   deploy/raspberrypi/install.sh --prefix /tmp/root --no-apt --no-venv   # a throwaway root
#
# 安装或更新牌桌盒子；可以重复运行，配置（包括裁判密码）、标定和比赛记录都会保留。
set -euo pipefail

usage() {
    cat <<'EOF'
usage: install.sh [options]
  --prefix DIR      install under DIR instead of / (no system user; systemctl works on DIR)
  --dry-run         print what would be done, change nothing
  --no-apt          do not install Debian packages
  --no-venv         do not create the virtual environment or pip install (tests)
  --no-systemctl    do not enable or start the service
  --python PY       Python to build the environment from (default python3)
  --seats N         3 or 4 (new config only; default 3)
  --preset NAME     rules preset (new config only; default classic, or four with --seats 4)
  --source SRC      camera: picamera, a USB camera number, a stream URL or a file (new config only)
  --port N          web site port (new config only; default 8000)
  -h, --help        this text
EOF
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$REPO/deploy/raspberrypi"
PREFIX=""
DRY=0 APT=1 VENV=1 SYSTEMCTL=1
PY=python3
SEATS=3 PRESET="" SOURCE="picamera" PORT=8000
SERVICE=ddz-table
SVC_USER=ddz-table

while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) PREFIX=$(realpath -m "$2"); shift 2 ;;
        --dry-run) DRY=1; shift ;;
        --no-apt) APT=0; shift ;;
        --no-venv) VENV=0; shift ;;
        --no-systemctl) SYSTEMCTL=0; shift ;;
        --python) PY=$2; shift 2 ;;
        --seats) SEATS=$2; shift 2 ;;
        --preset) PRESET=$2; shift 2 ;;
        --source) SOURCE=$2; shift 2 ;;
        --port) PORT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -n "$PRESET" ]] || { [[ "$SEATS" == 4 ]] && PRESET=four || PRESET=classic; }

# What the files say (the running system's paths) and where they are written (under PREFIX).
CONF_DIR=/etc/ddz-table
APP_DIR=/opt/ddz-table
DATA_DIR=/var/lib/ddz-table
UNIT_DIR=/etc/systemd/system
BIN_DIR=/usr/local/bin
R="$PREFIX"

say() { printf '==> %s\n' "$*"; }
run() {
    if [[ $DRY == 1 ]]; then printf '+ %s\n' "$*"; else "$@"; fi
}
# write_file MODE PATH: standard input to PATH, replaced in one step (never half written).
write_file() {
    local mode=$1 path=$2 tmp
    if [[ $DRY == 1 ]]; then printf '+ write %s (mode %s)\n' "$path" "$mode"; cat >/dev/null; return; fi
    tmp=$(mktemp "$path.XXXXXX")
    cat >"$tmp"
    chmod "$mode" "$tmp"
    mv -f "$tmp" "$path"
}
own() {  # own [-R] USER:GROUP PATH...: only on a real install (the user does not exist under --prefix)
    if [[ -z "$PREFIX" ]]; then run chown "$@"; fi
}

if [[ -z "$PREFIX" && $DRY == 0 && $(id -u) != 0 ]]; then
    echo "install.sh: run it with sudo (or give --prefix DIR / --dry-run)" >&2
    exit 1
fi

# The config tool runs from the source tree, so it works before (and without) the venv: only
# the `config` command is loaded (the whole CLI imports OpenCV, not there on a fresh Pi).
VENV_PY="$R$APP_DIR/venv/bin/python"
config_tool() {
    local py=$PY
    if [[ -x "$VENV_PY" ]]; then py=$VENV_PY; fi
    PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" "$py" -c 'import argparse, sys
from cli import config
parser = argparse.ArgumentParser(prog="ddz-table")
config.register(parser.add_subparsers(dest="command", required=True))
args = parser.parse_args(["config", *sys.argv[1:]])
sys.exit(args.func(args))' "$@"
}
# A new config is rendered (and checked) before anything changes: a bad --seats stops here.
pin=$("$PY" -c 'import secrets; print(f"{secrets.randbelow(10**6):06d}")')
NEW_CONFIG=$(config_tool render --set "seats=$SEATS" --set "preset=$PRESET" --set "source=$SOURCE" \
    --set "port=$PORT" --set "referee_pin=$pin" --set "data_dir=$DATA_DIR" \
    --set "calibration=$DATA_DIR/calibration.json" --set "model_dir=$APP_DIR/models" --set "host=0.0.0.0")

# ---------------------------------------------------------------- 1. Debian packages
if [[ $APT == 1 ]]; then
    say "Debian packages / 安装系统软件包"
    # gcc and python3-dev build the solver's compiled core (engine/solver/_core.c) for the 复盘;
    # without them the install still works and the analysis runs the slow pure-Python search.
    packages=(python3-venv python3-pip git gcc python3-dev)
    # Only Raspberry Pi OS has these; elsewhere (a PC with a USB camera) they are skipped.
    for pkg in python3-picamera2 rpicam-apps; do
        if apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then packages+=("$pkg"); fi
    done
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
else
    say "skip Debian packages (--no-apt)"
fi

# ---------------------------------------------------------------- 2. service user
if [[ -z "$PREFIX" ]]; then
    if id -u "$SVC_USER" >/dev/null 2>&1; then
        say "user $SVC_USER exists"
    else
        say "system user $SVC_USER / 创建服务用户"
        run useradd --system --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin "$SVC_USER"
    fi
    for group in video render; do  # the camera devices
        if getent group "$group" >/dev/null; then run usermod -aG "$group" "$SVC_USER"; fi
    done
else
    say "skip the system user (--prefix)"
fi

# ---------------------------------------------------------------- 3. folders
say "folders / 创建目录"
run mkdir -p "$R$CONF_DIR" "$R$APP_DIR" "$R$DATA_DIR" "$R$UNIT_DIR" "$R$BIN_DIR"
run chmod 0750 "$R$CONF_DIR" "$R$DATA_DIR"
own "root:$SVC_USER" "$R$CONF_DIR"
own -R "$SVC_USER:$SVC_USER" "$R$DATA_DIR"  # -R: repairs files a `sudo ddz-table ...` left owned by root

# ---------------------------------------------------------------- 4. program
if [[ $VENV == 1 ]]; then
    say "program in $APP_DIR/venv / 安装程序 (pip, a few minutes)"
    if [[ ! -x "$VENV_PY" ]]; then
        # --system-site-packages: picamera2 and libcamera come from apt, not from PyPI.
        run "$PY" -m venv --system-site-packages "$R$APP_DIR/venv"
    fi
    constraints="$R$APP_DIR/constraints.txt"
    # picamera2's compiled helpers are built against Debian's numpy: a numpy 2 from PyPI in
    # the venv would break them, so keep numpy (and OpenCV, which needs numpy 2 from 4.12) at
    # the system's major version.
    if "$PY" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) != 1)' 2>/dev/null; then
        printf 'numpy<2\nopencv-python-headless<4.12\n' | write_file 0644 "$constraints"
    else
        : | write_file 0644 "$constraints"
    fi
    run "$VENV_PY" -m pip install --upgrade --quiet pip
    # setuptools builds in the clone's build/ and never empties it: a module removed upstream
    # would ship again from there.
    run rm -rf "$REPO/build"
    run "$VENV_PY" -m pip install --upgrade --quiet -c "$constraints" "${REPO}[pi]"
    if [[ -x "$VENV_PY" ]] && ! "$VENV_PY" -c 'import sys; from engine.solver.compiled import available; sys.exit(not available())'; then
        say "WARNING: the solver's compiled core was not built (gcc, python3-dev?): the 复盘 runs the slow pure-Python search / 复盘求解器未编译"
    fi
    run "$VENV_PY" -m compileall -q "$R$APP_DIR/venv/lib"  # the service cannot write bytecode later
else
    say "skip the virtual environment (--no-venv)"
fi
say "models to $APP_DIR/models / 复制模型"
run mkdir -p "$R$APP_DIR/models"
shopt -s nullglob
for model in "$REPO"/models/*.onnx "$REPO"/models/*_ncnn_model; do
    run rm -rf "$R$APP_DIR/models/$(basename "$model")"
    run cp -r "$model" "$R$APP_DIR/models/"
done
shopt -u nullglob
run cp "$HERE/README.md" "$R$APP_DIR/README.md"
if [[ -e "$R$APP_DIR/venv/bin/ddz-table" || $DRY == 1 ]]; then
    run ln -sfn "$APP_DIR/venv/bin/ddz-table" "$R$BIN_DIR/ddz-table"
fi

# ---------------------------------------------------------------- 5. config
CONFIG="$R$CONF_DIR/config.toml"
if [[ -f "$CONFIG" ]]; then
    say "keep $CONF_DIR/config.toml (PIN and settings unchanged) / 保留原有配置"
    if ! config_tool check "$CONFIG" >/dev/null; then
        echo "install.sh: warning: $CONF_DIR/config.toml has a problem (above); the service will not start until it is fixed" >&2
    fi
else
    say "new $CONF_DIR/config.toml / 生成配置文件"
    printf '%s\n' "$NEW_CONFIG" | write_file 0640 "$CONFIG"
    own "root:$SVC_USER" "$CONFIG"
fi

# ---------------------------------------------------------------- 6. systemd unit
say "service $SERVICE / 安装系统服务"
unit=$(sed -e "s|@APP_DIR@|$APP_DIR|g" -e "s|@CONF_DIR@|$CONF_DIR|g" -e "s|@DATA_DIR@|$DATA_DIR|g" \
    -e "s|@USER@|$SVC_USER|g" -e "s|@WATCHDOG_SEC@|60|g" "$HERE/ddz-table.service.in")
printf '%s\n' "$unit" | write_file 0644 "$R$UNIT_DIR/$SERVICE.service"

if [[ $SYSTEMCTL == 0 ]] || ! command -v systemctl >/dev/null; then
    say "skip enabling the service (--no-systemctl or no systemctl)"
elif [[ -n "$PREFIX" ]]; then
    run systemctl --root="$PREFIX" enable "$SERVICE.service"
else
    run systemctl daemon-reload
    run systemctl enable "$SERVICE.service"
    # restart, not start: an update must replace the running program
    run systemctl restart "$SERVICE.service"
fi

# ---------------------------------------------------------------- done
port=$(config_tool get "$CONFIG" port 2>/dev/null || echo "$PORT")
address=$(PYTHONPATH="$REPO" "$PY" -c 'from box.lan import lan_address; print(lan_address() or "")' 2>/dev/null || true)
cat <<EOF

ddz-table installed / 安装完成.
  config / 配置:        $CONF_DIR/config.toml  (referee PIN / 裁判密码: sudo grep referee_pin $CONF_DIR/config.toml)
  data / 记录:          $DATA_DIR
  site / 网站:          http://${address:-<this-pi>}:$port/
Next / 下一步:
  1. sudo deploy/raspberrypi/calibrate.sh     # 标定 / calibrate the camera over the printed mat
  2. sudo ddz-table doctor                    # 检查 / check everything
  3. journalctl -u $SERVICE -f                # 日志 / follow the log
EOF
