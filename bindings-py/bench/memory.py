"""P-PY-3: memory over error paths. 1,000,000 failing calls, every kind of error in turn
(`error_paths.py`), with RSS and tracemalloc read after a warm-up and at the end: both must stay
flat (printed growth per 1,000,000 calls; goal: under 1 MiB RSS, under 64 KiB traced)."""

from __future__ import annotations

import gc
import os
import sys
import time
import tracemalloc

# One error path is a caught panic: Rust's panic hook prints each one (with a backtrace when
# RUST_BACKTRACE is set). Read once, at the first panic, so set before any call.
os.environ["RUST_BACKTRACE"] = "0"

from error_paths import error_paths  # noqa: E402 - after the environment is set

CALLS = 1_000_000
WARMUP = 20_000


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> int:
    # The panic hook's 62,500 messages go to stderr: silenced for the run (fd 2 to /dev/null).
    saved_stderr = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        return measure()
    finally:
        os.dup2(saved_stderr, 2)
        os.close(devnull)
        os.close(saved_stderr)


def measure() -> int:
    calls = error_paths()
    for i in range(WARMUP):
        calls[i % len(calls)]()
    gc.collect()
    tracemalloc.start()
    rss_before = rss_bytes()
    traced_before, _ = tracemalloc.get_traced_memory()
    start = time.perf_counter()
    for i in range(CALLS):
        calls[i % len(calls)]()
    elapsed = time.perf_counter() - start
    gc.collect()
    traced_after, _ = tracemalloc.get_traced_memory()
    rss_after = rss_bytes()
    tracemalloc.stop()
    print(f"# P-PY-3: memory over {CALLS:,} failing calls ({len(calls)} kinds of error, {elapsed:.1f} s)")
    print(f"bench P-PY-3 rss growth: {(rss_after - rss_before) / 1024:.0f} KiB (goal < 1024)")
    print(f"bench P-PY-3 traced growth: {(traced_after - traced_before) / 1024:.1f} KiB (goal < 64)", flush=True)
    ok = rss_after - rss_before < 1024 * 1024 and traced_after - traced_before < 64 * 1024
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
