"""Train the detector's models with Ultralytics, offline, from scratch.

Three stages share one entry point, :func:`train`:

- ``finder``: YOLO11n, one class (a corner index), on 320-416 px tiles whose indices are
  already at working scale; inference later runs it at 640 on whole frames.
- ``reader``: a small CNN (:mod:`sim.training.reader_net`, default) or YOLO11n-cls
  (``arch="yolo"``) on 96 px index crops, one class per card plus ``none``.
- ``single``: YOLO11n with the 54 card classes, the one-stage baseline.

Nothing is downloaded: the network is built from Ultralytics' bundled ``.yaml``, the
font Ultralytics wants for its plots is a local DejaVu copy, AMP checks are off. Training
resumes from ``last.pt`` (``resume=True``) and runs on CUDA with ``device="0"``.

Needs the ``train`` extra (torch, ultralytics); the rest of ``vision`` does not.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

STAGES = ("finder", "reader", "single")
FONT_SOURCES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)
FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")
RUNS_DIR = Path("runs")

# Per-stage defaults: the network recipe and the augmentations that suit what it looks at.
STAGE_DEFAULTS: dict[str, dict] = {
    "finder": {"model": "yolo11n.yaml", "imgsz": 384, "batch": 16, "close_mosaic": 2},
    "single": {"model": "yolo11n.yaml", "imgsz": 384, "batch": 16, "close_mosaic": 2, "fliplr": 0.0},
    # Index crops are already cut at the reader's scale: no zoom-crop, no mirror (a mirrored
    # 7 or J is not a card), light erasing to mimic a thumb over the corner.
    "reader": {"model": "yolo11n-cls.yaml", "imgsz": 96, "batch": 64, "fliplr": 0.0, "scale": 0.1,
               "erasing": 0.2, "auto_augment": None},
}


class TrainingError(RuntimeError):
    """Training cannot start: missing extra, dataset or checkpoint."""


@dataclass
class TrainConfig:
    """One training run. ``data`` is a ``data.yaml`` (finder, single) or a split folder (reader)."""

    stage: str
    data: str
    epochs: int = 30
    imgsz: int | None = None
    batch: int | None = None
    device: str = "cpu"
    workers: int = 2
    project: str = str(RUNS_DIR)
    name: str | None = None
    resume: bool = False
    weights: str | None = None  # start from these weights instead of from scratch
    hours: float | None = None  # wall-clock budget; Ultralytics fits the schedule to it
    seed: int = 0
    lr0: float | None = None  # initial rate; None: SGD 0.01 (finder, single), AdamW 3e-3 (tiny reader)
    warmup_epochs: float = 1.0
    patience: int = 100
    threads: int | None = None  # torch CPU threads; Ultralytics would use cores - 1
    cache: str | bool = False
    fraction: float = 1.0
    extra: dict = field(default_factory=dict)
    arch: str = "tiny"  # reader only: "tiny" (sim.training.reader_net) or "yolo" (YOLO11n-cls)
    blocks: int | None = None  # tiny reader only: residual blocks per grid (None: the start weights' or 0)
    #: (event, function) pairs handed to Ultralytics, e.g. ("on_fit_epoch_end", log).
    callbacks: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}; choose one of {', '.join(STAGES)}")
        if self.arch not in ("tiny", "yolo"):
            raise ValueError(f"unknown reader arch {self.arch!r}; choose tiny or yolo")
        if self.blocks is not None and (self.blocks < 0 or self.stage != "reader" or self.arch != "tiny"):
            raise ValueError("blocks is for the tiny reader only, and 0 or more")
        if self.epochs < 1:
            raise ValueError("epochs must be at least 1")
        if self.lr0 is not None and not self.lr0 > 0:
            raise ValueError(f"lr0 must be above 0, got {self.lr0}")
        if not self.warmup_epochs >= 0:
            raise ValueError(f"warmup must be 0 or more epochs, got {self.warmup_epochs}")
        self.name = self.name or self.stage


def ultralytics_config_dir() -> Path:
    """The folder Ultralytics keeps its settings and fonts in (same rule as Ultralytics)."""
    if env := os.getenv("YOLO_CONFIG_DIR"):
        return Path(env).expanduser() / "Ultralytics"
    return Path(os.getenv("XDG_CONFIG_HOME", Path.home() / ".config")) / "Ultralytics"


def prepare_offline(threads: int | None = None):
    """Make Ultralytics work without a network, then import and return it.

    Must run before the first ``import ultralytics``: its settings are read at import.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    config = ultralytics_config_dir()
    config.mkdir(parents=True, exist_ok=True)
    font = next((Path(p) for p in FONT_SOURCES if Path(p).exists()), None)
    for name in FONT_NAMES:
        if not (config / name).exists():
            if font is None:
                raise TrainingError("no DejaVuSans.ttf to stand in for Arial (apt install fonts-dejavu-core)")
            shutil.copyfile(font, config / name)
    try:
        import ultralytics
        from ultralytics.utils import SETTINGS, torch_utils
    except ImportError as exc:
        raise TrainingError("training needs the train extra: pip install -e '.[train]'") from exc
    SETTINGS.update({"sync": False})
    # Ultralytics trains on cores - 1 threads with no data workers on a CPU; on a small
    # machine that leaves a core idle.
    torch_utils.NUM_THREADS = threads or os.cpu_count() or 1
    return ultralytics


def run_dir(config: TrainConfig) -> Path:
    assert config.name is not None  # TrainConfig names every run (its stage by default)
    return Path(config.project) / config.name


def last_checkpoint(config: TrainConfig) -> Path:
    return run_dir(config) / "weights" / "last.pt"


def train_arguments(config: TrainConfig) -> dict:
    """The keyword arguments handed to ``YOLO.train`` for this run."""
    defaults = dict(STAGE_DEFAULTS[config.stage])
    defaults.pop("model")
    args = {
        **defaults,
        "data": str(Path(config.data).resolve()),
        "epochs": config.epochs,
        "device": config.device,
        "workers": config.workers,
        "project": str(Path(config.project).resolve()),
        "name": config.name,
        "exist_ok": True,
        "seed": config.seed,
        "deterministic": False,
        # An explicit optimiser: 'auto' picks a tiny AdamW rate for short runs.
        "optimizer": "SGD",
        "lr0": config.lr0 or 0.01,
        "momentum": 0.937,
        "warmup_epochs": config.warmup_epochs,
        "patience": config.patience,
        "plots": False,
        "amp": False,
        "cache": config.cache,
        "fraction": config.fraction,
        "verbose": False,
    }
    if config.imgsz:
        args["imgsz"] = config.imgsz
    if config.batch:
        args["batch"] = config.batch
    if config.hours:
        args["time"] = config.hours
    args.update(config.extra)
    return args


def check_data(config: TrainConfig) -> None:
    data = Path(config.data)
    if config.stage == "reader":
        if not (data / "train").is_dir():
            raise TrainingError(f"reader data must be a folder with train/ and val/ class folders: {data}")
    elif not data.is_file():
        raise TrainingError(f"dataset file not found: {data}")


def train(config: TrainConfig) -> Path:
    """Train (or resume) one stage; returns the path of the best weights."""
    check_data(config)
    if config.stage == "reader" and config.arch == "tiny":
        return _train_tiny_reader(config)
    prepare_offline(config.threads)
    from ultralytics import YOLO

    if config.resume:
        last = last_checkpoint(config)
        if not last.exists():
            raise TrainingError(f"nothing to resume: {last} does not exist")
        model = YOLO(str(last))
        _add_callbacks(model, config)
        # Only what Ultralytics lets a resumed run change (device, workers, time, ...).
        overrides = {"resume": str(last), "device": config.device, "workers": config.workers}
        if config.hours:
            overrides["time"] = config.hours
        model.train(**overrides)
    else:
        model = YOLO(config.weights or STAGE_DEFAULTS[config.stage]["model"])
        _add_callbacks(model, config)
        model.train(**train_arguments(config))
    best = run_dir(config) / "weights" / "best.pt"
    if not best.exists():
        best = last_checkpoint(config)
    return best


def _train_tiny_reader(config: TrainConfig) -> Path:
    try:
        from sim.training.reader_net import train_reader
    except ImportError as exc:
        raise TrainingError("training needs the train extra: pip install -e '.[train]'") from exc
    if config.resume and not last_checkpoint(config).exists():
        raise TrainingError(f"nothing to resume: {last_checkpoint(config)} does not exist")
    return train_reader(config.data, run_dir(config), epochs=config.epochs, imgsz=config.imgsz or 96,
                        batch=config.batch or 128, lr=config.lr0 or 3e-3, device=config.device, seed=config.seed, resume=config.resume,
                        hours=config.hours, threads=config.threads or os.cpu_count(), init=config.weights,
                        blocks=config.blocks)


def _add_callbacks(model, config: TrainConfig) -> None:
    for event, function in config.callbacks:
        model.add_callback(event, function)


def describe(config: TrainConfig) -> str:
    skip = {"callbacks", "extra"}
    return ", ".join(f"{k}={v}" for k, v in asdict(config).items() if k not in skip and v not in (None, False))
