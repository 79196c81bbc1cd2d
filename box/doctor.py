"""``ddz-table doctor``: is this box ready to referee? (检查牌桌盒子)

    ddz-table doctor [--config /etc/ddz-table/config.toml] [--json] [--snapshot frame.png]

Checks the settings file, the camera (a frame from the configured source; when the service
is running and holds the camera, its own report on ``/healthz``), the model files, the
calibration, disk space and the store, the clock and the address phones join at. Each line
is OK, WARN or FAIL, in Chinese and English, with what to do about it; the exit code is 1
when anything FAILs. Nothing here may raise: a broken box is exactly what it is run on.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVICE = "ddz-table"
REINSTALL = "sudo deploy/raspberrypi/install.sh"
#: Before this the clock was never set (a Pi has no battery-backed clock by default).
EARLIEST_PLAUSIBLE = 1735689600  # 2025-01-01
DISK_FAIL_MB, DISK_WARN_MB = 200, 1024


@dataclass
class Check:
    name: str
    level: str  # OK, WARN, FAIL
    zh: str
    en: str
    fix_zh: str = ""
    fix_en: str = ""


def ok(name: str, zh: str, en: str) -> Check:
    return Check(name, "OK", zh, en)


def warn(name: str, zh: str, en: str, fix_zh: str = "", fix_en: str = "") -> Check:
    return Check(name, "WARN", zh, en, fix_zh, fix_en)


def fail(name: str, zh: str, en: str, fix_zh: str = "", fix_en: str = "") -> Check:
    return Check(name, "FAIL", zh, en, fix_zh, fix_en)


# ---------------------------------------------------------------------- config
def check_config(path: str) -> tuple[Check, Any]:
    from box.config import ConfigError, load_config

    try:
        config = load_config(path)
    except ConfigError as exc:
        return fail("config", "配置文件有误", str(exc), f"按提示修改 {path}，或重新运行安装脚本",
                    f"fix the line named above in {path}, or run {REINSTALL} again"), None
    return ok("config", f"配置文件 {path} 正确", f"{path} is valid ({config.seats} seats, {config.preset})"), config


# ---------------------------------------------------------------------- camera
def service_state() -> str | None:
    """``active``, ``inactive``, ... of the service; None without systemd."""
    if shutil.which("systemctl") is None:
        return None
    try:
        out = subprocess.run(["systemctl", "is-active", SERVICE], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def check_service_camera(config: Any) -> Check:
    """The running service holds the camera: ask it how the camera is doing."""
    url = f"http://127.0.0.1:{config.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            pipeline = json.loads(response.read()).get("pipeline", {})
    except (OSError, ValueError) as exc:
        return fail("camera", "服务在运行，但网站没有回应", f"the service runs but {url} does not answer: {exc}",
                    "查看日志: journalctl -u ddz-table -n 50", "read the log: journalctl -u ddz-table -n 50")
    state, last = pipeline.get("source_state"), pipeline.get("last_frame")
    age = time.time() - last if isinstance(last, (int, float)) else None
    if state == "running" and age is not None and age < 10:
        return ok("camera", f"服务正在读取摄像头 ({pipeline.get('fps', 0)} 帧/秒)",
                  f"the service is reading {pipeline.get('source')} at {pipeline.get('fps', 0)} fps")
    return fail("camera", f"服务读不到摄像头画面（状态 {state}）",
                f"the service gets no frames from {pipeline.get('source')} (state {state}, "
                f"error {pipeline.get('error')})",
                "检查排线两端是否插紧、触点方向是否正确，然后 sudo systemctl restart ddz-table",
                "check both ends of the camera cable (contacts the right way round), then "
                "sudo systemctl restart ddz-table")


def grab_frame(config: Any, timeout_s: float = 20.0, settle_s: float = 2.0) -> tuple[Any, str | None]:
    """A frame from the configured source (after ``settle_s`` of a live camera), or the error.

    Runs on a thread so a stream that never answers cannot hang the doctor."""
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            from vision.sources import open_source

            source = open_source(config.source, reconnect=False, **config.source_options())
            try:
                start, frame = time.monotonic(), None
                for _ in range(120):
                    got = source.read()
                    if got is None:
                        break
                    frame = got.image
                    if not source.live or time.monotonic() - start >= settle_s:
                        break
                result["frame"] = frame
            finally:
                source.close()
        except Exception as exc:  # noqa: BLE001 - any failure is the camera check's answer
            result["error"] = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)

    thread = threading.Thread(target=work, name="doctor-camera", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return None, f"no answer from {config.source} in {timeout_s:.0f} s"
    if result.get("error"):
        return None, result["error"]
    if result.get("frame") is None:
        return None, f"{config.source} gave no frame"
    return result["frame"], None


def check_camera(config: Any, frame: Any, error: str | None) -> Check:
    if frame is not None:
        h, w = frame.shape[:2]
        return ok("camera", f"摄像头 {config.source} 正常，画面 {w}x{h}", f"{config.source} gave a {w}x{h} frame")
    if config.source.lower().startswith("picamera") or config.source == "pi":
        fix_zh = ("关机拔电后检查排线（树莓派 5 用 22 针转 15 针的排线），再运行 rpicam-hello --list-cameras"
                  "；确认已安装 python3-picamera2")
        fix_en = ("power off, reseat the ribbon cable (a Pi 5 needs the 22-to-15-pin camera cable), then run "
                  "rpicam-hello --list-cameras; make sure python3-picamera2 is installed")
    else:
        fix_zh = "检查 [camera] source：USB 摄像头编号、视频流地址或文件路径是否正确"
        fix_en = "check [camera] source: the USB camera number, stream address or file path"
    return fail("camera", "摄像头拿不到画面", f"no frame from {config.source}: {error}", fix_zh, fix_en)


# ---------------------------------------------------------------------- model
def check_model(config: Any) -> Check:
    import numpy as np

    models = Path(config.models)
    fix_zh, fix_en = f"重新运行安装脚本复制模型文件: {REINSTALL}", f"copy the model files again: {REINSTALL}"
    missing = [name for name in ("finder.onnx", "reader.onnx") if not (models / name).is_file()]
    if missing:
        return fail("model", f"缺少模型文件 {', '.join(missing)}", f"missing {', '.join(missing)} in {models}",
                    fix_zh, fix_en)
    deck = getattr(config, "deck_profile", None)
    profile = None
    if deck:
        from vision.profile import DeckProfile, ProfileError

        try:
            profile = DeckProfile.load(deck)
        except (ProfileError, OSError) as exc:
            return fail("model", f"牌组档案无法读取: {deck}", f"cannot read the deck profile {deck}: {exc}",
                        "用 ddz-table enroll --list 查看已录入的牌组，改正 [model] deck 或留空",
                        "see `ddz-table enroll --list`; fix [model] deck or leave it empty")
    try:
        backend = config.resolved_backend()
        from tracker.detection import build_detector

        detector = build_detector("onnx", backend, models, profile=profile)
        size = tuple(detector.imgsz)
        if size[0] != size[1] or size[0] % 32 or not 256 <= size[0] <= 1280:
            return fail("model", f"检测模型输入尺寸不对 {size}", f"the finder takes {size[0]}x{size[1]} input; "
                        "expected a square multiple of 32 between 256 and 1280", fix_zh, fix_en)
        start = time.perf_counter()
        detector.detect(np.zeros((size[0], size[1], 3), np.uint8))
        ms = (time.perf_counter() - start) * 1000
    except Exception as exc:  # noqa: BLE001 - a corrupt file fails in many ways inside the runtime
        return fail("model", "模型文件无法加载", f"cannot load the models in {models}: {exc}", fix_zh, fix_en)
    deck_zh, deck_en = (f"，牌组档案 {config.deck}", f", deck profile {config.deck}") if profile is not None else ("", "")
    return ok("model", f"模型正常（{backend}，输入 {size[0]}，一次 {ms:.0f} 毫秒{deck_zh}）",
              f"models load ({backend}, {size[0]}x{size[1]} input, one blank frame in {ms:.0f} ms{deck_en})")


# ---------------------------------------------------------------------- calibration
def check_calibration(config: Any, frame: Any) -> Check:
    import numpy as np

    from tracker.zones import Calibration, CalibrationError

    fix_zh, fix_en = "重新标定: sudo deploy/raspberrypi/calibrate.sh", "calibrate again: sudo deploy/raspberrypi/calibrate.sh"
    path = Path(config.calibration)
    if not path.is_file():
        return fail("calibration", "还没有标定文件", f"no calibration file at {path}", fix_zh, fix_en)
    try:
        cal = Calibration.load(path)
    except CalibrationError as exc:
        return fail("calibration", "标定文件损坏", f"{path}: {exc}", fix_zh, fix_en)
    w, h = cal.image_size
    mat = np.array([[0, 0], [cal.layout.width_mm, 0], [cal.layout.width_mm, cal.layout.height_mm],
                    [0, cal.layout.height_mm]], np.float64)
    corners = cal.table_to_image(mat)
    area = 0.5 * abs(np.dot(corners[:, 0], np.roll(corners[:, 1], 1)) - np.dot(corners[:, 1], np.roll(corners[:, 0], 1)))
    inside = ((corners >= -0.05 * np.array([w, h])) & (corners <= 1.05 * np.array([w, h]))).all()
    problems = []
    if not np.isfinite(corners).all() or not inside:
        problems.append(("桌垫的四角不在画面内", "the mat's corners fall outside the camera's view"))
    elif area < 0.1 * w * h:
        problems.append(("桌垫在画面里太小（摄像头太高或没对准）",
                         f"the mat fills only {100 * area / (w * h):.0f}% of the view (camera too high or off-centre)"))
    if cal.layout.seats != config.seats:
        problems.append((f"标定的桌垫是 {cal.layout.seats} 人的，配置是 {config.seats} 人",
                         f"the calibrated mat has {cal.layout.seats} seats, the config says {config.seats}"))
    if frame is not None and (frame.shape[1], frame.shape[0]) != (w, h):
        problems.append((f"标定时画面 {w}x{h}，现在摄像头是 {frame.shape[1]}x{frame.shape[0]}",
                         f"calibrated at {w}x{h} but the camera now gives {frame.shape[1]}x{frame.shape[0]}"))
    if problems:
        return fail("calibration", "；".join(p[0] for p in problems), "; ".join(p[1] for p in problems), fix_zh, fix_en)
    if cal.error_px > 5:
        return warn("calibration", f"标定误差较大 ({cal.error_px:.1f} 像素)", f"calibration error {cal.error_px:.1f} px",
                    "桌垫要铺平，再标定一次", "flatten the mat and calibrate again")
    return ok("calibration", f"标定正常（{cal.method}，桌垫占画面 {100 * area / (w * h):.0f}%）",
              f"calibration is sane ({cal.method}, the mat fills {100 * area / (w * h):.0f}% of the view)")


# ---------------------------------------------------------------------- disk, store
def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(config: Any) -> Check:
    free_mb = shutil.disk_usage(_existing(Path(config.data_dir))).free / 2**20
    fix_zh, fix_en = "删掉不用的文件，或换更大的 microSD 卡", "delete unused files or use a larger microSD card"
    if free_mb < DISK_FAIL_MB:
        return fail("disk", f"磁盘只剩 {free_mb:.0f} MB", f"only {free_mb:.0f} MB free for {config.data_dir}", fix_zh, fix_en)
    if free_mb < DISK_WARN_MB:
        return warn("disk", f"磁盘只剩 {free_mb:.0f} MB", f"{free_mb:.0f} MB free for {config.data_dir}", fix_zh, fix_en)
    return ok("disk", f"磁盘剩余 {free_mb / 1024:.1f} GB", f"{free_mb / 1024:.1f} GB free for {config.data_dir}")


def check_store(config: Any) -> Check:
    data, db = Path(config.data_dir), Path(config.db)
    fix_zh, fix_en = f"sudo chown -R ddz-table: {data}", f"give the service its folder: sudo chown -R ddz-table: {data}"
    if not data.is_dir():
        return fail("store", f"数据目录 {data} 不存在", f"the data folder {data} does not exist",
                    f"重新运行安装脚本: {REINSTALL}", f"run {REINSTALL} again")
    probe = data / f".doctor-{os.getpid()}"
    try:
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        return fail("store", f"数据目录 {data} 不能写入", f"cannot write in {data}: {exc.strerror}", fix_zh, fix_en)
    if os.geteuid() == 0:  # root can write anywhere: check the service user owns it instead
        owner = _service_uid()
        wrong = [p for p in (data, db, Path(f"{db}-wal")) if owner is not None and p.exists() and p.stat().st_uid != owner]
        if wrong:
            return fail("store", "数据文件不属于 ddz-table 用户", f"{', '.join(map(str, wrong))} not owned by the "
                        "ddz-table user (the service could not write)", fix_zh, fix_en)
    if not db.exists():
        return ok("store", "记录库将在第一次启动时创建", f"{data} is writable; the store is created on first start")
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            result = con.execute("PRAGMA quick_check").fetchone()[0]
            tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        con.close()
    except sqlite3.Error as exc:
        return fail("store", "记录库打不开", f"cannot read the store {db}: {exc}",
                    "把这个文件备份后移走，服务会建一个新的", "move the file aside (keep it); the service starts a new one")
    if result != "ok":
        return fail("store", "记录库损坏", f"{db} fails its integrity check: {result}",
                    "把这个文件备份后移走，服务会建一个新的", "move the file aside (keep it); the service starts a new one")
    return ok("store", "记录库正常", f"the store {db} is readable and intact ({tables} tables and indexes)")


def _service_uid() -> int | None:
    try:
        import pwd

        return pwd.getpwnam(SERVICE).pw_uid
    except (KeyError, ImportError):
        return None


# ---------------------------------------------------------------------- clock, network
def check_clock(now: float | None = None, synced: str | None = "ask") -> Check:
    now = time.time() if now is None else now
    if synced == "ask":
        synced = None
        if shutil.which("timedatectl"):
            try:
                synced = subprocess.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
                                        capture_output=True, text=True, timeout=10).stdout.strip() or None
            except (OSError, subprocess.SubprocessError):
                synced = None
    shown = time.strftime("%Y-%m-%d %H:%M", time.localtime(now))
    if now < EARLIEST_PLAUSIBLE or now > EARLIEST_PLAUSIBLE + 75 * 365 * 86400:
        return fail("clock", f"系统时间不对 ({shown})", f"the clock says {shown}",
                    "连上网络让时间自动同步: sudo timedatectl set-ntp true", "connect to the network so the "
                    "time syncs: sudo timedatectl set-ntp true")
    if synced == "no":
        return warn("clock", f"时间 {shown}，尚未与网络同步", f"the clock ({shown}) is not synchronised (NTP)",
                    "连上网络；离线时记录的时间可能不准", "connect to the network; offline, record times may drift")
    extra = ("，已同步", ", synchronised") if synced == "yes" else ("", "")
    return ok("clock", f"时间 {shown}{extra[0]}", f"the clock says {shown}{extra[1]}")


def check_network(config: Any) -> Check:
    from box.lan import join_url, lan_address

    if config.host.startswith("127.") or config.host == "localhost":
        return warn("network", "网站只在本机可见，手机无法访问", f"the site listens on {config.host} only: phones cannot join",
                    "在配置的 [site] 里写 host = \"0.0.0.0\"", 'set host = "0.0.0.0" under [site] in the config')
    lan = lan_address()
    if lan is None:
        return warn("network", "没有连上局域网", "no local network address",
                    "连上俱乐部的 Wi-Fi: sudo nmtui", "join the club's Wi-Fi: sudo nmtui")
    url = join_url(config.host, config.port, lan)
    return ok("network", f"手机访问 {url}", f"phones join at {url}")


# ---------------------------------------------------------------------- all of it
def run_checks(config_path: str, snapshot: str | None = None, camera_timeout: float = 20.0) -> list[Check]:
    checks: list[Check] = []

    def guarded(name: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - the doctor reports; it never crashes
            return fail(name, "检查时出错", f"the check itself failed: {type(exc).__name__}: {exc}")

    result = guarded("config", check_config, config_path)
    first, config = result if isinstance(result, tuple) else (result, None)
    checks.append(first)
    checks.append(guarded("clock", check_clock))
    if config is None:
        checks.append(warn("other", "其他检查要等配置文件改好", "the other checks need a valid config first"))
        return checks
    frame = None
    if service_state() == "active":
        checks.append(guarded("camera", check_service_camera, config))
    else:
        frame, error = grab_frame(config, camera_timeout)
        checks.append(guarded("camera", check_camera, config, frame, error))
        if snapshot and frame is not None:
            import cv2

            if not cv2.imwrite(snapshot, frame):
                checks.append(fail("snapshot", "照片保存失败", f"cannot write {snapshot}"))
    for name, fn, *args in (("model", check_model, config), ("calibration", check_calibration, config, frame),
                            ("disk", check_disk, config), ("store", check_store, config),
                            ("network", check_network, config)):
        checks.append(guarded(name, fn, *args))
    return checks


def format_checks(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.level:<4}  {c.name:<11} {c.zh} / {c.en}")
        if c.fix_zh or c.fix_en:
            lines.append(f"{'':17} 怎么办: {c.fix_zh}")
            lines.append(f"{'':17} Fix: {c.fix_en}")
    fails, warns = sum(c.level == "FAIL" for c in checks), sum(c.level == "WARN" for c in checks)
    verdict = ("一切正常 / all good" if not fails and not warns else
               f"{fails} 项失败, {warns} 项警告 / {fails} failed, {warns} warning(s)")
    return "\n".join(lines + ["", verdict])
