"""The ``ddz-table`` command: one module per group of sub-commands, each with ``register(subparsers)``."""
