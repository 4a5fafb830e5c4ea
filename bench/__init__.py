"""Benchmarks: each module here has a ``main()``; run one with ``python -m bench NAME``."""
