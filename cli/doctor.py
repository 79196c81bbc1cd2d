"""``ddz-table doctor``: is this table box ready (camera, model, calibration, disk, clock, network)?"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from box import doctor
from box.config import DEFAULT_PATH


def register(subparsers: argparse._SubParsersAction) -> None:
    doctor = subparsers.add_parser("doctor", help="check camera, model, calibration, disk, clock / 检查设备",
                                   description="Check that this table box is ready; exit code 1 when a check fails.")
    doctor.add_argument("--config", default=DEFAULT_PATH, help=f"settings file (default {DEFAULT_PATH})")
    doctor.add_argument("--json", action="store_true", help="one JSON object instead of text")
    doctor.add_argument("--snapshot", help="also save the camera's frame here (to calibrate from)")
    doctor.add_argument("--camera-timeout", type=float, default=20.0, help=argparse.SUPPRESS)
    doctor.set_defaults(func=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    checks = doctor.run_checks(args.config, args.snapshot, args.camera_timeout)
    failed = any(c.level == "FAIL" for c in checks)
    if args.json:
        print(json.dumps({"ok": not failed, "checks": [asdict(c) for c in checks]}, ensure_ascii=False, indent=1))
    else:
        print(doctor.format_checks(checks))
    sys.stdout.flush()
    return 1 if failed else 0
