#!/usr/bin/env bash
# The box on arm64, checked on a PC: a Debian bookworm arm64 root (debootstrap, run through
# qemu-user-static), install.sh run in it as a club runs it, the service's command started as
# the unit starts it, then the checks below, then uninstall.sh. Prints one PASS/FAIL line per
# check and keeps them in $WORK/results.txt.
#
#   sudo deploy/raspberrypi/pi-check.sh            # or: sudo make pi-check
#   sudo deploy/raspberrypi/pi-check.sh --from video   # start again at a step (the root is reused)
#
# The root is built once and kept ($ROOT, default /var/tmp/ddz-pi-root, outside the repo);
# each step leaves a stamp in $WORK/stamps, so a run cut short carries on where it stopped.
# Steps: host root base x86 install wheels solver backend doctor service video detect compare uninstall report.
# Under qemu everything runs 10-50 times slower than on a Pi: no timing here is a measurement.
#
# 在 PC 上用 arm64 模拟环境检查树莓派盒子的安装、服务和识别结果。
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$REPO/deploy/raspberrypi"
ROOT=${DDZ_PI_ROOT:-/var/tmp/ddz-pi-root}
WORK=${DDZ_PI_WORK:-/var/tmp/ddz-pi-work}
MIRROR=${DDZ_PI_MIRROR:-http://deb.debian.org/debian}
PORT=${DDZ_PI_PORT:-18642}
HOST_VENV=${DDZ_PI_HOST_VENV:-$REPO/.venv}
TOL_PX=2
# A read under this confidence may fall either side of the detector's threshold (0.17) on
# another machine: it needs no partner there (runtimes differ by up to about 0.01).
SURE=0.19
# The film's first FRAMES frames (26 s, five plays); the emulated CPU (qemu's names): cortex-a72
# is a Pi 4's core. A Pi 5's cortex-a76 has half-precision arithmetic, which NCNN then uses and
# qemu emulates slowly (3-4 times slower here), so the single frames are also read on it.
FRAMES=${DDZ_PI_FRAMES:-130}
export QEMU_CPU=${DDZ_PI_CPU:-cortex-a72}
PI5_CPU=cortex-a76
FROM=""
STEPS=(host root base x86 install wheels solver backend doctor service video detect compare uninstall report)

while [[ $# -gt 0 ]]; do
    case "$1" in
        --from) FROM=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "pi-check.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ $(id -u) == 0 ]] || { echo "pi-check.sh: run it as root (debootstrap, chroot, mounts)" >&2; exit 1; }
[[ $(uname -m) == x86_64 ]] || { echo "pi-check.sh: made for an x86-64 PC (it compares against it)" >&2; exit 1; }

STAMPS="$WORK/stamps"
RESULTS="$WORK/results.txt"
CLONE=/home/club/ddz-table          # where the club's git clone lies inside the root
INROOT_WORK=/home/club/check        # the film, images and outputs, inside the root
mkdir -p "$STAMPS" "$WORK"
if [[ -n "$FROM" ]]; then
    found=0
    for s in "${STEPS[@]}"; do
        [[ $s == "$FROM" ]] && found=1
        if [[ $found == 1 ]]; then rm -f "$STAMPS/$s"; fi
    done
    [[ $found == 1 ]] || { echo "pi-check.sh: no step $FROM (${STEPS[*]})" >&2; exit 2; }
fi

say() { printf '==> %s\n' "$*"; }
# result NAME PASS|FAIL TEXT: one line, printed and kept (a later run of the step replaces it).
result() {
    local line
    line=$(printf '%-4s %-10s %s' "$2" "$1" "$3")
    echo "$line"
    touch "$RESULTS"
    grep -v -E "^(PASS|FAIL) +$1 " "$RESULTS" >"$RESULTS.tmp" || true
    printf '%s\n' "$line" >>"$RESULTS.tmp"
    mv "$RESULTS.tmp" "$RESULTS"
}
done_step() { touch "$STAMPS/$1"; }
todo() { [[ ! -e "$STAMPS/$1" ]]; }

# ---------------------------------------------------------------- mounts for the chroot
MOUNTED=()
mount_root() {
    [[ ${#MOUNTED[@]} == 0 ]] || return 0
    local d
    for d in proc dev dev/pts dev/shm; do mkdir -p "$ROOT/$d"; done
    # No /sys: it would be this PC's, and arm64 code reading an x86 CPU's topology from it
    # crashed under qemu (the runtimes fall back to what the kernel and qemu report).
    # (a run killed before its clean-up leaves them mounted: those are reused, not stacked)
    mountpoint -q "$ROOT/proc" || { mount -t proc proc "$ROOT/proc" && MOUNTED+=("$ROOT/proc"); }
    mountpoint -q "$ROOT/dev" || { mount --bind /dev "$ROOT/dev" && MOUNTED+=("$ROOT/dev"); }
    mountpoint -q "$ROOT/dev/pts" || { mount -t devpts devpts "$ROOT/dev/pts" -o newinstance,ptmxmode=0666 \
        && MOUNTED+=("$ROOT/dev/pts"); }
    mountpoint -q "$ROOT/dev/shm" || { mount -t tmpfs shm "$ROOT/dev/shm" && MOUNTED+=("$ROOT/dev/shm"); }
    MOUNTED+=("")  # mounted (or found mounted): not again
}
SERVICE_PID=""
cleanup() {
    if [[ -n "$SERVICE_PID" ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then kill -- "-$SERVICE_PID" || true; fi
    if [[ -n "${NOTIFY_PID:-}" ]] && kill -0 "$NOTIFY_PID" 2>/dev/null; then kill "$NOTIFY_PID" || true; fi
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        if [[ -n "${MOUNTED[$i]}" ]]; then umount -l "${MOUNTED[$i]}" || true; fi
    done
}
trap cleanup EXIT
# in_root CMD...: run in the arm64 root as root, with a plain environment.
in_root() {
    mount_root
    chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb "QEMU_CPU=$QEMU_CPU" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# ---------------------------------------------------------------- 1. host: qemu and binfmt
if todo host; then
    say "host: debootstrap, qemu-user-static, binfmt"
    need=()
    command -v debootstrap >/dev/null || need+=(debootstrap)
    [[ -x /usr/bin/qemu-aarch64-static ]] || need+=(qemu-user-static)
    command -v update-binfmts >/dev/null || need+=(binfmt-support)
    if [[ ${#need[@]} -gt 0 ]]; then
        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
    fi
    # A container often starts without binfmt_misc mounted; qemu-aarch64 is registered with
    # the F flag, so the chroot needs no copy of the emulator.
    if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64
    grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
        || { echo "pi-check.sh: qemu-aarch64 is registered without the F flag" >&2; exit 1; }
    done_step host
fi

# ---------------------------------------------------------------- 2. the arm64 root (kept)
if todo root; then
    if [[ ! -x "$ROOT/usr/bin/python3" ]]; then
        say "debootstrap bookworm arm64 into $ROOT (once; 10-30 minutes)"
        rm -rf "$ROOT.partial"
        # What a Raspberry Pi OS Lite image has before the guide's first step: Python 3 with
        # venv and pip, numpy from Debian (python3-picamera2 depends on it), curl.
        debootstrap --arch=arm64 --variant=minbase \
            --include=python3,python3-venv,python3-pip,python3-numpy,ca-certificates,curl \
            bookworm "$ROOT.partial" "$MIRROR"
        mv "$ROOT.partial" "$ROOT"
    fi
    [[ "$(chroot "$ROOT" /usr/bin/uname -m)" == aarch64 ]] || { echo "pi-check.sh: $ROOT does not run as aarch64" >&2; exit 1; }
    done_step root
fi
mount_root  # here, not in a subshell: the clean-up must know what to unmount

# ---------------------------------------------------------------- 3. base: network, picamera2 stand-in, film
FILM="$WORK/film"
if todo base; then
    say "base: DNS, CA certificates, the picamera2 stand-in and its film"
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
    # A PC behind a TLS-inspecting proxy trusts its CA; pip inside the root needs it too.
    if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
        cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
        in_root update-ca-certificates >/dev/null
    fi
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$MIRROR" "$MIRROR" >"$ROOT/etc/apt/sources.list"
    # The film: a short rendered game (card art) filmed at 1280x720, 5 fps.
    if [[ ! -s "$FILM/video.mp4" ]]; then
        nice -n 15 "$HOST_VENV/bin/ddz-table" simulate --seed 3 --seats 3 --hands 1 --cards 3 --fps 5 \
            --size 1280x720 --out "$FILM"
    fi
    # Raspberry Pi OS puts picamera2 in Debian's Python folder, where the venv
    # (--system-site-packages) finds it.
    dist="$ROOT/usr/lib/python3/dist-packages/picamera2"
    mkdir -p "$dist" "$ROOT/usr/share/picamera2-standin"
    cp "$HERE/pi-check/picamera2.py" "$dist/__init__.py"
    cp "$FILM/video.mp4" "$ROOT/usr/share/picamera2-standin/film.mp4"
    in_root python3 -m compileall -q /usr/lib/python3/dist-packages/picamera2
    done_step base
fi

# ---------------------------------------------------------------- 4. the x86 reference
X86="$WORK/x86"
# The film's run, the same command on both machines (from the film's folder, --db added).
RUN_ARGS=(run --source video.mp4 --calibration calibration.json --rules classic --no-web --new-match
          --pin 000000 --backend auto --max-frames "$FRAMES")
if todo x86; then
    say "x86: the film and a few frames read on this PC (ONNX Runtime)"
    rm -rf "$X86" && mkdir -p "$X86/images"
    # Frames with cards on the mat: the four most crowded of twelve spread over the film.
    nice -n 15 "$HOST_VENV/bin/python" - "$FILM/video.mp4" "$X86/images" <<'EOF'
import sys, cv2
cap = cv2.VideoCapture(sys.argv[1])
n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
for k in range(12):
    cap.set(cv2.CAP_PROP_POS_FRAMES, (k + 1) * n // 13)
    ok, image = cap.read()
    if ok:
        cv2.imwrite(f"{sys.argv[2]}/frame{k:02d}.png", image)
EOF
    nice -n 15 "$HOST_VENV/bin/ddz-table" detect --json --no-zoom --backend onnx "$X86"/images/*.png >"$X86/all.jsonl"
    "$HOST_VENV/bin/python" - "$X86" <<'EOF'
import json, os, sys
rows = [json.loads(line) for line in open(f"{sys.argv[1]}/all.jsonl")]
keep = {os.path.basename(r["image"]) for r in sorted(rows, key=lambda r: -len(r["detections"]))[:4]}
for r in rows:
    if os.path.basename(r["image"]) not in keep:
        os.remove(r["image"])
EOF
    nice -n 15 "$HOST_VENV/bin/ddz-table" detect --json --no-zoom --backend onnx "$X86"/images/*.png >"$X86/detect-onnx.jsonl"
    (cd "$FILM" && nice -n 15 "$HOST_VENV/bin/ddz-table" "${RUN_ARGS[@]}" --db "$X86/run.db") >"$X86/run.log" 2>&1
    done_step x86
fi

# ---------------------------------------------------------------- 5. install, as a club does
LIST_EXCLUDE='^/(proc|sys|dev|run|tmp|home/club|root/\.cache|var/cache|var/lib/apt|var/log)(/|[[:space:]])'
file_list() {  # every path in the root with its type, owner and mode
    in_root find / -xdev -printf '%p\t%y %u:%g %m\n' | grep -v -E "$LIST_EXCLUDE" | sort
}
if todo install; then
    say "install: the clone, then sudo deploy/raspberrypi/install.sh"
    # A root left by an earlier check: back to a first install (uninstall --purge).
    if [[ -d "$ROOT/etc/ddz-table" || -d "$ROOT/opt/ddz-table" ]] || grep -q '^ddz-table:' "$ROOT/etc/passwd"; then
        mkdir -p "$ROOT$CLONE" && cp "$HERE/uninstall.sh" "$ROOT/tmp/uninstall.sh"
        in_root bash /tmp/uninstall.sh --purge
    fi
    rm -rf "$ROOT/home/club" && mkdir -p "$ROOT$CLONE" "$ROOT$INROOT_WORK"
    # What a git clone holds: the tree less .git and what .gitignore leaves out (card art, venv, ...).
    tar -C "$REPO" --exclude=./.git --exclude=./.venv --exclude=__pycache__ --exclude='*.egg-info' \
        --exclude=./.pytest_cache --exclude=./.ruff_cache --exclude=./.hypothesis --exclude=./build \
        --exclude=./dist --exclude=./runs --exclude=./datasets/generated --exclude=./datasets/cards \
        --exclude='*.pt.tmp' --exclude='*.db' --exclude='*.db-wal' --exclude='*.db-shm' \
        -cf - . | tar -C "$ROOT$CLONE" -xf -
    cp -r "$FILM" "$X86/images" "$ROOT$INROOT_WORK/"
    in_root dpkg-query -W -f "\${Package}\n" | sort >"$WORK/packages-before.txt"
    file_list >"$WORK/files-before.txt"
    if in_root bash -c "cd $CLONE && deploy/raspberrypi/install.sh --port $PORT" >"$WORK/install.log" 2>&1; then
        result install PASS "install.sh finished ($(grep -c '^==>' "$WORK/install.log") steps; log $WORK/install.log)"
    else
        result install FAIL "install.sh failed: $(tail -3 "$WORK/install.log" | tr '\n' ' ')"
        exit 1
    fi
    done_step install
fi

VENV=/opt/ddz-table/venv
CONFIG=/etc/ddz-table/config.toml
# ---------------------------------------------------------------- 6. wheels
if todo wheels; then
    say "wheels: where the venv's packages came from"
    in_root "$VENV/bin/python" "$CLONE/deploy/raspberrypi/pi-check/compare.py" wheels >"$WORK/wheels.json"
    if out=$(python3 "$HERE/pi-check/compare.py" wheels-check "$WORK/wheels.json"); then status=PASS; else status=FAIL; fi
    printf '%s\n' "$out" >"$WORK/wheels.txt"
    result wheels "$status" "$(printf '%s' "$out" | paste -sd ';' | sed 's/;/; /g')"
    done_step wheels
fi

# ---------------------------------------------------------------- 6b. the solver's compiled core
if todo solver; then
    say "solver: the compiled core built on arm64, answering as the pure-Python search"
    probe='import random, sys
from engine.solver import random_position
from engine.solver.compiled import available, solve, why_not
if not available():
    sys.exit(f"not built: {why_not()}")
rng, same = random.Random(48), 0
for _ in range(30):
    p = random_position(rng, rng.randint(2, 6))
    a, b = solve(p, core="compiled"), solve(p, core="python")
    same += (a.landlord_wins, a.move) == (b.landlord_wins, b.move)
print(f"compiled core built; {same}/30 positions answered as the pure-Python search")
sys.exit(same != 30)'
    if out=$(in_root "$VENV/bin/python" -c "$probe" 2>&1); then status=PASS; else status=FAIL; fi
    result solver "$status" "$(tail -1 <<<"$out")"
    done_step solver
fi

# service_argv CMD...: SERVICE_ARGV = CMD in the root as the unit runs its ExecStart: as its
# User and Group (with their groups), in its WorkingDirectory, with its UMask, its Environment
# and what systemd adds (HOME, USER, LOGNAME, and EXTRA_ENV: the notify socket, the watchdog).
unit_value() { sed -n "s/^$1=//p" "$ROOT/etc/systemd/system/ddz-table.service" | head -1; }
service_argv() {
    local user wd umask home
    local -a env
    user=$(unit_value User) wd=$(unit_value WorkingDirectory) umask=$(unit_value UMask)
    home=$(grep "^$user:" "$ROOT/etc/passwd" | cut -d: -f6)
    read -r -a env <<<"$(unit_value Environment) ${EXTRA_ENV:-}"
    SERVICE_ARGV=(chroot "$ROOT" /usr/bin/env -i LANG=C.UTF-8 "QEMU_CPU=$QEMU_CPU"
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        setpriv --reuid "$user" --regid "$(unit_value Group)" --init-groups
        /usr/bin/env "HOME=$home" "USER=$user" "LOGNAME=$user" "${env[@]}"
        bash -c "umask $umask && cd $wd && exec \"\$@\"" service "$@")
}
as_service() { service_argv "$@"; "${SERVICE_ARGV[@]}"; }

# ---------------------------------------------------------------- 7. backend auto
if todo backend; then
    say "backend: what --backend auto picks"
    picked=$(as_service "$VENV/bin/python" -c "from box.config import load_config; print(load_config('$CONFIG').resolved_backend())" 2>&1 | tail -1)
    machine=$(in_root uname -m)
    if [[ $picked == ncnn ]]; then status=PASS; else status=FAIL; fi
    result backend "$status" "--backend auto picks $picked on $machine"
    done_step backend
fi

# ---------------------------------------------------------------- 8. calibrate, doctor
if todo doctor; then
    say "doctor: calibrate.sh from the (stand-in) camera, then ddz-table doctor"
    in_root bash -c "cd $CLONE && deploy/raspberrypi/calibrate.sh" >"$WORK/calibrate.log" 2>&1 || true
    # qemu-user sometimes kills a threaded program (SIGSEGV inside the emulator): such a run is
    # said and tried once more; a crash on both tries, or a failed check, is a FAIL.
    crashes=0 status=FAIL
    for try in 1 2; do
        rc=0
        in_root env PYTHONFAULTHANDLER=1 ddz-table doctor --config "$CONFIG" >"$WORK/doctor-$try.log" 2>&1 || rc=$?
        cp "$WORK/doctor-$try.log" "$WORK/doctor.log"
        if [[ $rc == 0 ]]; then status=PASS; break; fi
        grep -q 'qemu: uncaught target signal' "$WORK/doctor-$try.log" || break
        crashes=$((crashes + 1))
    done
    model=$(grep -E '^(OK|WARN|FAIL) +model' "$WORK/doctor.log" | sed 's/.* \/ //' || true)
    summary=$(grep -E '^(OK|WARN|FAIL) ' "$WORK/doctor.log" | awk '{print $2 "=" $1}' | paste -sd ' ' || true)
    calibrated=$(grep -o 'markers ([^)]*), error [0-9.]* px' "$WORK/calibrate.log" || echo "no calibration")
    result doctor "$status" "calibrate.sh: $calibrated; doctor: ${summary:-no report}; $model; qemu crashes: $crashes"
    done_step doctor
fi

# ---------------------------------------------------------------- 9. the service
if todo service; then
    say "service: the unit's ExecStart as its user, with a notify socket (systemd stand-in)"
    exec_start=$(unit_value ExecStart)
    sock=/run/ddz-pi-check-notify.sock
    mkdir -p "$ROOT/run"
    rm -f "$ROOT$sock" "$WORK/notify.txt"
    python3 - "$ROOT$sock" "$WORK/notify.txt" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(s.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
EOF
    NOTIFY_PID=$!
    watchdog_usec=$(( $(unit_value WatchdogSec) * 1000000 ))
    # shellcheck disable=SC2086 # ExecStart is a command line
    EXTRA_ENV="NOTIFY_SOCKET=$sock WATCHDOG_USEC=$watchdog_usec" service_argv $exec_start
    # its own process group, so that stopping it stops all of it (as systemd's cgroup does)
    setsid "${SERVICE_ARGV[@]}" >"$WORK/service.log" 2>&1 &
    SERVICE_PID=$!
    ready="" healthz="" page=""
    for _ in $(seq 1 180); do  # up to 15 minutes under emulation
        sleep 5
        kill -0 "$SERVICE_PID" 2>/dev/null || break
        grep -q 'READY=1' "$WORK/notify.txt" 2>/dev/null && ready=yes
        if [[ -n $ready ]]; then
            healthz=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" || true)
            page=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" || true)
            [[ $healthz == 200 ]] && break
        fi
    done
    # The main loop pings the watchdog once a frame; an emulated frame takes tens of seconds.
    for _ in $(seq 1 60); do
        grep -q 'WATCHDOG=1' "$WORK/notify.txt" 2>/dev/null && break
        kill -0 "$SERVICE_PID" 2>/dev/null || break
        sleep 5
    done
    pings=$(grep -c 'WATCHDOG=1' "$WORK/notify.txt" 2>/dev/null || true)
    curl -s "http://127.0.0.1:$PORT/healthz" >"$WORK/healthz.json" || true
    kill -TERM -- "-$SERVICE_PID" 2>/dev/null || true  # what systemctl stop sends
    stopped=no
    for waited in $(seq 1 120); do  # (emulated, a frame's inference finishes before the signal is seen)
        if ! kill -0 "$SERVICE_PID" 2>/dev/null; then stopped="in ${waited} s"; break; fi
        sleep 1
    done
    kill -KILL -- "-$SERVICE_PID" 2>/dev/null || true
    stopping=$(grep -c 'STOPPING=1' "$WORK/notify.txt" 2>/dev/null || true)
    if [[ -n $ready && $healthz == 200 && $page == 200 && ${pings:-0} -gt 0 ]]; then status=PASS; else status=FAIL; fi
    result service "$status" "READY=1 ${ready:-no}, WATCHDOG=1 x${pings:-0}, /healthz $healthz, / $page on port $PORT; SIGTERM: stopped ${stopped}, STOPPING=1 x${stopping:-0}"
    wait "$SERVICE_PID" 2>/dev/null || true
    kill "$NOTIFY_PID" 2>/dev/null || true
    rm -f "$ROOT$sock"
    done_step service
fi

# ---------------------------------------------------------------- 10. the film on arm64
if todo video; then
    say "video: the film through ddz-table run on arm64 (qemu: slow)"
    rm -f "$ROOT$INROOT_WORK/arm64.db"
    in_root bash -c "cd $INROOT_WORK/film && $VENV/bin/ddz-table ${RUN_ARGS[*]} --db $INROOT_WORK/arm64.db" \
        >"$WORK/video.log" 2>&1 || true
    if out=$(python3 "$HERE/pi-check/compare.py" plays "$ROOT$INROOT_WORK/arm64.db" "$X86/run.db" 2>&1); then
        status=PASS
    else
        status=FAIL
    fi
    printf '%s\n' "$out" >"$WORK/video.txt"
    result video "$status" "first $FRAMES frames, arm64 ($QEMU_CPU, auto: ncnn) vs x86 (auto: onnx): $(head -1 <<<"$out")"
    done_step video
fi

# ---------------------------------------------------------------- 11. detect on a few frames
if todo detect; then
    say "detect: the same frames, NCNN and ONNX Runtime on arm64 against ONNX Runtime on x86"
    runs=("ncnn $QEMU_CPU" "onnx $QEMU_CPU")
    [[ $QEMU_CPU == "$PI5_CPU" ]] || runs+=("ncnn $PI5_CPU")
    for run in "${runs[@]}"; do
        read -r backend cpu <<<"$run"
        name="detect-$backend"
        [[ $cpu == "$QEMU_CPU" ]] || name="detect-$backend-${cpu#cortex-}"
        QEMU_CPU=$cpu in_root bash -c "$VENV/bin/ddz-table detect --json --no-zoom --backend $backend $INROOT_WORK/images/*.png" \
            >"$WORK/$name.jsonl" 2>"$WORK/$name.err" || true
        echo "$cpu $backend" >"$WORK/$name.what"
    done
    done_step detect
fi

# ---------------------------------------------------------------- 12. compare the reads (no root needed)
if todo compare; then
    say "compare: each arm64 read against ONNX Runtime on x86"
    for what in "$WORK"/detect-*.what; do
        [[ -e $what ]] || continue
        name=$(basename "$what" .what)
        read -r cpu backend <"$what"
        if out=$(python3 "$HERE/pi-check/compare.py" detect "$WORK/$name.jsonl" "$X86/detect-onnx.jsonl" \
                 --tol $TOL_PX --sure $SURE 2>&1); then status=PASS; else status=FAIL; fi
        printf '%s\n' "$out" >"$WORK/$name.txt"
        result "$name" "$status" "arm64 ($cpu) $backend vs x86 onnx: $(head -1 <<<"$out")"
    done
    done_step compare
fi

# alternative PATH: a link dpkg's alternatives made for a package install.sh added (gcc's cc,
# c89, c99 and cpp, with their manual pages): /etc/alternatives/NAME pointing at one of its
# files, or a link to such a NAME. dpkg -L does not list them.
alternative() {
    local target
    target=$(readlink "$ROOT$1") || return 1
    if [[ $1 == /etc/alternatives/* ]]; then
        grep -qxF "$target" "$WORK/package-files.txt"
    else
        [[ $target == /etc/alternatives/* ]] && alternative "$target"
    fi
}

# ---------------------------------------------------------------- 13. uninstall, and the root as found
if todo uninstall; then
    say "uninstall: sudo deploy/raspberrypi/uninstall.sh, then the root against its list before install"
    if ! in_root bash -c "cd $CLONE && deploy/raspberrypi/uninstall.sh" >"$WORK/uninstall.log" 2>&1; then
        result uninstall FAIL "uninstall.sh failed: $(tail -2 "$WORK/uninstall.log" | tr '\n' ' ')"
    else
        file_list >"$WORK/files-after.txt"
        in_root dpkg-query -W -f "\${Package}\n" | sort >"$WORK/packages-after.txt"
        # Files of the Debian packages install.sh added (python3-venv, git, ...) stay, as apt leaves them.
        comm -13 "$WORK/packages-before.txt" "$WORK/packages-after.txt" >"$WORK/packages-added.txt"
        : >"$WORK/package-files.txt"
        while read -r pkg; do in_root dpkg -L "$pkg" >>"$WORK/package-files.txt" 2>/dev/null || true; done <"$WORK/packages-added.txt"
        sort -u -o "$WORK/package-files.txt" "$WORK/package-files.txt"
        paths() { cut -f1 "$1" | sort; }
        comm -13 <(paths "$WORK/files-before.txt") <(paths "$WORK/files-after.txt") >"$WORK/files-new.txt"
        comm -23 <(paths "$WORK/files-before.txt") <(paths "$WORK/files-after.txt") >"$WORK/files-gone.txt"
        # What the guide says stays: the data folder and the config (with the PIN).
        kept='^/(var/lib/ddz-table|etc/ddz-table)(/|$)'
        comm -23 "$WORK/files-new.txt" "$WORK/package-files.txt" | grep -v -E "$kept" \
            | grep -v -E '^/var/lib/dpkg/|^/etc/ld\.so\.cache$|^/etc/(passwd|group|shadow|gshadow)-$' \
            | while read -r p; do alternative "$p" || printf '%s\n' "$p"; done \
            >"$WORK/files-unexplained.txt" || true  # dpkg's records; the kept user's account backups
        kept_n=$(grep -c -E "$kept" "$WORK/files-new.txt" || true)
        pkg_n=$(comm -12 "$WORK/files-new.txt" "$WORK/package-files.txt" | wc -l)
        left=$(wc -l <"$WORK/files-unexplained.txt") gone=$(wc -l <"$WORK/files-gone.txt")
        data_ok=no
        [[ -d "$ROOT/var/lib/ddz-table" && -f "$ROOT/etc/ddz-table/config.toml" ]] && data_ok=yes
        if [[ $left == 0 && $gone == 0 && $data_ok == yes && ! -e "$ROOT/opt/ddz-table" ]]; then status=PASS; else status=FAIL; fi
        result uninstall "$status" "$left unexplained new paths, $gone removed; kept as the guide says: $kept_n under /var/lib/ddz-table + /etc/ddz-table ($data_ok); $pkg_n from the packages install.sh added ($(paste -sd ' ' "$WORK/packages-added.txt" | cut -c1-120))"
    fi
    done_step uninstall
fi

# ---------------------------------------------------------------- report
say "results ($(date -u '+%Y-%m-%d %H:%M UTC'); the files are in $WORK)"
for s in install wheels solver backend doctor service video detect-ncnn detect-onnx detect-ncnn-a76 uninstall; do
    grep -E "^(PASS|FAIL) +$s " "$RESULTS" || echo "----  $s       not run yet"
done
! grep -q '^FAIL' "$RESULTS"
