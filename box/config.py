"""The table box's settings file, ``/etc/ddz-table/config.toml`` (配置文件).

The service runs ``ddz-table run --config /etc/ddz-table/config.toml``; flags given on the
command line win over the file, and the file wins over the built-in defaults. Every key is
checked here, so a typo or a wrong value stops the service with one line naming the key and
its line in the file, never a traceback.

>>> cfg = parse_config('[table]\\nseats = 4\\npreset = "four"\\nreferee_pin = "2468"\\n')
>>> cfg.seats, cfg.preset, cfg.source, cfg.port
(4, 'four', 'picamera', 8000)
>>> parse_config('[table]\\nseats = 5\\n')
Traceback (most recent call last):
...
box.config.ConfigError: config.toml line 2: table.seats = 5: must be 3 or 4
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracker.paths import DB_NAME  # the store's file name in data_dir, the same off the box
from vision.backends import BACKEND_CHOICES

DEFAULT_PATH = "/etc/ddz-table/config.toml"


class ConfigError(ValueError):
    """The config file is missing, not TOML, or has a key or value the box cannot use."""


# ---------------------------------------------------------------------- the keys
def _one_of(*choices: Any) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if value in choices:
            return None
        return "must be " + (" or ".join(repr(c) if isinstance(c, str) else str(c) for c in choices))
    return check


def _pin(value: str) -> str | None:
    return None if re.fullmatch(r"\d{4,8}", value) else "must be 4 to 8 digits in quotes, like \"482913\""


def mode_error(value: str) -> str | None:
    if value == "auto" or re.fullmatch(r"[1-9]\d{1,4}x[1-9]\d{1,4}", value):
        return None
    return 'must be "auto" or WIDTHxHEIGHT, like "2304x1296"'


def _source(value: Any) -> str | None:
    if isinstance(value, int):
        return None if 0 <= value < 64 else "a USB camera number must be 0 to 63"
    return None if value.strip() else 'must not be empty (use "picamera", a camera number, a stream URL or a file)'


def _preset(value: str) -> str | None:
    from engine.rules import PRESETS

    return None if value in PRESETS else f"must be one of {', '.join(PRESETS)}"


def _port(value: int) -> str | None:
    return None if 1 <= value <= 65535 else "must be a port number from 1 to 65535"


def _nonempty(value: str) -> str | None:
    return None if value.strip() else "must not be empty"


def _deck(value: str) -> str | None:
    if value == "":  # before the import: the installer renders a config before OpenCV is there
        return None
    from vision.profile import NAME_PATTERN

    if NAME_PATTERN.fullmatch(value) or value.endswith(".npz"):
        return None
    return 'must be a deck name from `ddz-table enroll --list` (like "club"), a .npz file, or ""'


def _names(value: list) -> str | None:
    if all(isinstance(v, str) and v.strip() for v in value):
        return None
    return 'must be a list of names in quotes, like ["张三", "李四", "王五"]'


@dataclass(frozen=True)
class Key:
    types: tuple[type, ...]
    default: Any
    check: Callable[[Any], str | None] | None = None
    path: bool = False  # relative paths are taken from the config file's folder


SCHEMA: dict[str, dict[str, Key]] = {
    "table": {
        "seats": Key((int,), 3, _one_of(3, 4)),
        "preset": Key((str,), "classic", _preset),
        "players": Key((list,), [], _names),
        "referee_pin": Key((str,), "", lambda v: None if v == "" else _pin(v)),
        "protocol": Key((str,), "zones", _one_of("zones", "pile")),
        "mat": Key((str,), "A2", _one_of("A3", "A2", "A1")),
        "double": Key((bool,), False),
    },
    "camera": {
        "source": Key((str, int), "picamera", _source),
        "mode": Key((str,), "auto", mode_error),
        "calibration": Key((str,), "/var/lib/ddz-table/calibration.json", _nonempty, path=True),
        "view": Key((bool,), False),
        "height_mm": Key((int, float), 0, lambda v: None if v == 0 or 200 <= v <= 5000 else
                         "must be the lens-to-table height in millimetres (200 to 5000), or 0 if not measured"),
        "mains_hz": Key((int,), 50, _one_of(50, 60)),
    },
    "site": {
        "host": Key((str,), "0.0.0.0", _nonempty),
        "port": Key((int,), 8000, _port),
    },
    "data": {
        "dir": Key((str,), "/var/lib/ddz-table", _nonempty, path=True),
    },
    "club": {  # replication to a club server (ddz-table club); url "": none
        "url": Key((str,), "", lambda v: None if v == "" or v.startswith(("http://", "https://")) else
                   'must be the club server\'s address, like "http://192.168.1.10:8080", or ""'),
        "table": Key((int,), 0, lambda v: None if 0 <= v <= 9999 else "must be this table's number (1 to 9999)"),
        "key": Key((str,), ""),
    },
    "model": {
        "dir": Key((str,), "", None, path=True),  # "": the models folder beside the code
        "backend": Key((str,), "auto", _one_of(*BACKEND_CHOICES)),
        "deck": Key((str,), "", _deck),
    },
}

_TYPE_WORDS = {str: "text in quotes", int: "a whole number", float: "a number", bool: "true or false",
               list: "a list [...]"}


@dataclass(frozen=True)
class Config:
    """Checked settings; paths are absolute when the file was read from disk."""

    seats: int = 3
    preset: str = "classic"
    players: tuple[str, ...] = ()
    referee_pin: str = ""
    protocol: str = "zones"
    mat: str = "A2"
    #: Players may double (加倍) at this table: a new match gets the ``player_double`` rule.
    double: bool = False
    source: str = "picamera"
    mode: str = "auto"
    calibration: str = "/var/lib/ddz-table/calibration.json"
    camera_view: bool = False
    height_mm: float = 0
    mains_hz: int = 50
    host: str = "0.0.0.0"
    port: int = 8000
    data_dir: str = "/var/lib/ddz-table"
    model_dir: str = ""
    backend: str = "auto"
    deck: str = ""
    club_url: str = ""
    club_table: int = 0
    club_key: str = ""
    path: str = "config.toml"

    @property
    def db(self) -> str:
        return str(Path(self.data_dir) / DB_NAME)

    @property
    def deck_profile(self) -> str | None:
        """The deck profile ``run`` reads with: a name is looked up in ``decks/`` of the box's
        data folder (where ``ddz-table enroll`` run as the service's user saves it), a file
        path is kept; ``""``: none."""
        if not self.deck:
            return None
        if self.deck.endswith(".npz"):
            path = Path(self.deck)
            return str(path if path.is_absolute() else Path(self.path).parent / path)
        from tracker.paths import DECKS_NAME
        from vision.profile import SUFFIX

        return str(Path(self.data_dir) / DECKS_NAME / f"{self.deck}{SUFFIX}")

    @property
    def camera_size(self) -> tuple[int, int] | None:
        if self.mode == "auto":
            return None
        w, h = self.mode.split("x")
        return int(w), int(h)

    def source_options(self) -> dict[str, Any]:
        """What ``vision.sources.open_source`` takes besides the source (sources ignore the rest)."""
        options: dict[str, Any] = {"mains_hz": float(self.mains_hz)}
        if self.camera_size:
            options["size"] = self.camera_size
        if self.height_mm:
            options["height_mm"] = float(self.height_mm)
        options["mat"] = self.mat  # the sensor mode chosen must keep the whole mat in view
        return options

    @property
    def models(self) -> Path:
        if self.model_dir:
            return Path(self.model_dir)
        from models import MODELS_DIR

        return MODELS_DIR

    def resolved_backend(self, machine: str | None = None) -> str:
        """``auto``: NCNN on an ARM board when both NCNN model folders and the runtime are there, else ONNX Runtime."""
        if self.backend != "auto":
            return self.backend
        import importlib.util
        import platform

        arm = (machine or platform.machine()).lower() in ("aarch64", "arm64", "armv7l", "armv8l")
        ncnn_ready = (all((self.models / f"{m}_ncnn_model").is_dir() for m in ("finder", "reader"))
                      and importlib.util.find_spec("ncnn") is not None)
        return "ncnn" if arm and ncnn_ready else "onnx"


_FIELD = {("table", k): k for k in SCHEMA["table"]} | {
    ("camera", "source"): "source", ("camera", "mode"): "mode", ("camera", "calibration"): "calibration",
    ("camera", "view"): "camera_view", ("camera", "height_mm"): "height_mm",
    ("camera", "mains_hz"): "mains_hz", ("site", "host"): "host", ("site", "port"): "port",
    ("data", "dir"): "data_dir", ("model", "dir"): "model_dir", ("model", "backend"): "backend",
    ("model", "deck"): "deck", ("club", "url"): "club_url", ("club", "table"): "club_table",
    ("club", "key"): "club_key",
}


# ---------------------------------------------------------------------- reading
def _line_of(text: str, section: str, key: str | None = None) -> int | None:
    """The line where ``[section]`` (or ``key`` inside it) is written, for the error message."""
    current = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        header = re.fullmatch(r"\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).strip().strip('"')
            if key is None and current == section:
                return number
        elif key is not None and current == section and re.match(rf'"?{re.escape(key)}"?\s*=', line):
            return number
    return None


def parse_config(text: str, name: str = "config.toml", base: Path | None = None) -> Config:
    """Check TOML text against :data:`SCHEMA`; ``base`` anchors relative paths."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the optional backport, else a clear message
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError("reading config.toml needs Python 3.11 or newer (or `pip install tomli`)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name} is not valid TOML: {exc}") from None

    def where(section: str, key: str | None = None) -> str:
        line = _line_of(text, section, key)
        return f"{name} line {line}" if line else name

    values: dict[str, Any] = {}
    for section, table in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"{where(section)}: unknown section [{section}]; "
                              f"sections are {', '.join(f'[{s}]' for s in SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{where(section, section)}: {section} must be a [{section}] section, not a value")
        for key, value in table.items():
            spec = SCHEMA[section].get(key)
            at = f"{where(section, key)}: {section}.{key}"
            if spec is None:
                raise ConfigError(f"{at}: unknown key; [{section}] takes {', '.join(SCHEMA[section])}")
            if isinstance(value, bool) and bool not in spec.types or not isinstance(value, spec.types):
                wanted = " or ".join(_TYPE_WORDS[t] for t in spec.types)
                raise ConfigError(f"{at} = {_toml(value)}: must be {wanted}")
            problem = spec.check(value) if spec.check else None
            if problem:
                raise ConfigError(f"{at} = {_toml(value)}: {problem}")
            if spec.path and value and base is not None:
                value = str((base / Path(str(value)).expanduser()).resolve())
            values[_FIELD[(section, key)]] = tuple(value) if isinstance(value, list) else value
    if isinstance(values.get("source"), int):
        values["source"] = str(values["source"])
    config = Config(**values, path=name)
    _check_together(config, where)
    return config


def _check_together(config: Config, where: Callable[..., str]) -> None:
    from engine.rules import get_rules

    rules = get_rules(config.preset)
    if rules.players != config.seats:
        raise ConfigError(f"{where('table', 'preset')}: table.preset = {config.preset!r} is for {rules.players} "
                          f"players but table.seats = {config.seats}; use preset \"four\" for 4 seats")
    if config.club_url and not config.club_table:
        raise ConfigError(f"{where('club', 'url')}: club.url is set: give club.table, this table's number")
    if config.players and len(config.players) != config.seats:
        raise ConfigError(f"{where('table', 'players')}: table.players names {len(config.players)} players; "
                          f"table.seats = {config.seats}")


def load_config(path: str | Path) -> Config:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path} (run deploy/raspberrypi/install.sh, or give --config)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc} "
                          "(try sudo: the file holds the referee PIN)") from None
    return parse_config(text, str(path), path.parent.resolve())


# ---------------------------------------------------------------------- writing
TEMPLATE = """\
# ddz-table 牌桌盒子配置 / table box settings
# 改完后重启服务 / after editing: sudo systemctl restart ddz-table
# 检查 / check: sudo ddz-table doctor

[table]
# 座位数: 3 或 4 / seats: 3 or 4
seats = {seats}
# 规则 / rules: classic qq chips fixed grab (3 人 / 3 seats), four (4 人 / 4 seats)
preset = {preset}
# 按座位顺序的名字，可以不填 / names in seat order, may stay empty: ["张三", "李四", "王五"]
players = {players}
# 裁判密码（保密）/ referee PIN (keep it secret)
referee_pin = {referee_pin}
# zones: 各自面前出牌 / each seat plays in its own zone; pile: 都出到中间 / one centre pile
protocol = {protocol}
# 打印的桌垫尺寸 / printed mat size: A3 A2 A1
mat = {mat}
# 加倍：地主定后、出牌前每人可用加倍牌加倍一次（×2）/ players may double once each with a 加倍 token (x2)
double = {double}

[camera]
# picamera (树莓派摄像头 / Pi camera), 0 (USB 摄像头 / USB camera),
# "tcp://127.0.0.1:8888" (rpicam-vid), 或视频文件 / or a video file
source = {source}
# "auto" 或 / or WIDTHxHEIGHT, 如 / like "2304x1296" (camera.md)
mode = {mode}
# 标定文件 / calibration file (sudo deploy/raspberrypi/calibrate.sh writes it)
calibration = {calibration}
# 网页上显示摄像头画面（占用 CPU）/ camera view on the site (costs CPU)
view = {view}
# 镜头到桌面的高度（毫米），0 = 未量 / lens-to-table height in mm, 0 = not measured (camera.md)
height_mm = {height_mm}
# 市电频率：中国大陆 50，台湾 60 / mains frequency (lights flicker at twice it)
mains_hz = {mains_hz}

[site]
# "0.0.0.0": 同一 Wi-Fi 的手机可以访问 / phones on the same Wi-Fi can join
host = {host}
port = {port}

[data]
# 记录库所在目录，卸载时保留 / event store folder (SQLite), kept on uninstall
dir = {data_dir}

[model]
# 模型目录，空 = 程序自带 / model folder, empty = the shipped models
dir = {model_dir}
# auto: 树莓派上用 NCNN，其他用 ONNX / NCNN on the Pi, else ONNX Runtime; or onnx, openvino, ncnn
backend = {backend}
# 本桌用的牌组档案（ddz-table enroll 录入），空 = 不用 / the club's deck profile (ddz-table enroll), empty = none
deck = {deck}
"""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # JSON escapes are valid TOML basic strings


def render_config(**values: Any) -> str:
    """The commented config file with ``values`` (Config field names) over the defaults.

    What it writes is read back and checked, so the installer can never leave a file the
    service refuses."""
    fields = {f: getattr(Config(), f) for f in Config.__dataclass_fields__ if f != "path"}
    unknown = set(values) - set(fields)
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(sorted(unknown))}")
    fields.update(values)
    if isinstance(fields["source"], str) and fields["source"].isdigit():
        fields["source"] = int(fields["source"])
    fields["view"] = fields.pop("camera_view")
    for name in ("club_url", "club_table", "club_key"):  # an optional [club] section, not in the template
        fields.pop(name)
    text = TEMPLATE.format(**{k: _toml(v) for k, v in fields.items()})
    parse_config(text, "rendered config")
    return text
