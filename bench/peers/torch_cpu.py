#!/usr/bin/env python3
"""Peer: PyTorch on the CPU, on the same inputs as `gradops bench`.

LayerNorm backward through aten.native_layer_norm_backward, RMSNorm backward
through autograd of its forward definition (rstd from x, eps 1e-6: gradops is
handed that rstd in float32, so both solve one problem), SiLU backward through
aten.silu_backward. Inputs are drawn exactly as tools/problems.cc draws them
(splitmix64 hashes of stream and index), so the data is bit-identical to
gradops'. Each timed call starts with the caches emptied of its data, as in
`gradops bench`. Prints one JSON object per line: time, GB/s, and the largest error of
each output against the same operation in float64 and the share of its elements other
than that result rounded once to the output's dtype.

    torch_cpu.py --threads 2 --reps 7 [--quick]
"""
import argparse
import json
import os
import time

import numpy as np
import torch

OPS = {"layer_norm_backward": 0, "rms_norm_backward": 1, "silu_backward": 4}
DTYPES = {"float32": (0, torch.float32), "float16": (1, torch.float16), "bfloat16": (2, torch.bfloat16)}
MASK64 = (1 << 64) - 1


def hash_uniform(stream, n, lo, hi):
    """lo + (hi - lo) * u in float32, u = (splitmix64(stream * 2^32 + i) >> 40) * 2^-24."""
    with np.errstate(over="ignore"):
        z = (np.uint64((stream << 32) & MASK64) + np.arange(n, dtype=np.uint64)
             + np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)
    return np.float32(lo) + np.float32(hi - lo) * u


def fill(stream, shape, lo, hi, dtype):
    """A tensor as Buffer::Fill makes it: rounded to dtype, zeros replaced by hi / 2."""
    v = torch.from_numpy(hash_uniform(stream, int(np.prod(shape)), lo, hi)).to(dtype)
    v = torch.where(v == 0, torch.tensor(hi / 2, dtype=dtype), v)
    return v.reshape(shape)


def eviction_bytes():
    """Twice the largest cache the C library reports (256 MiB if none), at most 2 GiB: as tools/timing.h."""
    largest = 0
    for name in ("SC_LEVEL1_DCACHE_SIZE", "SC_LEVEL2_CACHE_SIZE", "SC_LEVEL3_CACHE_SIZE", "SC_LEVEL4_CACHE_SIZE"):
        try:
            largest = max(largest, os.sysconf(name))
        except (ValueError, OSError):
            pass
    return min(2 * largest if largest > 0 else 256 << 20, 2 << 30)


EVICTION = None


def evict_caches():
    """Reads a buffer larger than the caches, so that the next call's inputs come from memory (tools/timing.h)."""
    global EVICTION
    if EVICTION is None:
        EVICTION = torch.ones(eviction_bytes() // 8, dtype=torch.int64)
    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)
    EVICTION[::8].sum()  # one value per 64-byte line
    torch.set_num_threads(threads)


def median_ms(fn, reps):
    evict_caches()
    fn()
    times = []
    for _ in range(reps):
        evict_caches()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def max_error(got, want):
    got, want = got.double(), want.double()
    finite = want[torch.isfinite(want)]
    scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
    return float((got - want).abs().max()) / scale


def rounded_to(want, dtype):
    """want (float64) rounded once to dtype, to nearest, ties to even, as numpy float64 (ref::RoundedTo):
    16-bit dtypes through float32 rounded to odd, so that no tie is decided twice."""
    w = want.detach().double().numpy()
    if dtype == torch.float32:
        return w.astype(np.float32).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = w.astype(np.float32)
        inexact = np.isfinite(w) & (f.astype(np.float64) != w)
        toward_zero = inexact & (np.abs(f.astype(np.float64)) > np.abs(w))
        f[toward_zero] = np.nextafter(f[toward_zero], np.float32(0))
        f.view(np.uint32)[inexact] |= np.uint32(1)
    # float32 to 16 bits rounds to nearest even and keeps NaN.
    return torch.from_numpy(f).to(dtype).double().numpy()


def misrounded(got, want):
    """Share of got's elements other than want rounded once to got's dtype (NaN matches NaN)."""
    best = rounded_to(want, got.dtype)
    g = got.detach().double().numpy()
    same = (g == best) | (np.isnan(g) & np.isnan(best))
    return float(1.0 - same.mean()) if g.size else 0.0


def inputs(op, dtype_name, shape):
    seed = 1 + 10 * OPS[op] + DTYPES[dtype_name][0]
    dt = DTYPES[dtype_name][1]
    silu = op == "silu_backward"
    dy = fill(seed * 8 + 0, shape, -3, 3, dt)
    x = fill(seed * 8 + 1, shape, -8 if silu else -3, 8 if silu else 3, dt)
    if silu:
        return dy, x, None, None, None
    M, N = shape
    mean = fill(seed * 8 + 2, (M, 1), -1, 1, torch.float32)
    rstd = fill(seed * 8 + 3, (M, 1), 0.1, 3, torch.float32)
    gamma = fill(seed * 8 + 4, (N,), -3, 3, torch.float32)  # float32, as in tools/problems.cc
    return dy, x, mean, rstd, gamma


def layer_norm(dy, x, mean, rstd, gamma):
    N = x.shape[-1]
    beta = torch.zeros_like(gamma)  # unused by the maths; the op wants it for the dbeta output
    return torch.ops.aten.native_layer_norm_backward(dy, x, [N], mean, rstd, gamma, beta, [True, True, True])


def rms_norm_graph(x, gamma):
    """Autograd graph of the RMSNorm forward (rstd from x itself, eps 1e-6)."""
    x = x.detach().requires_grad_(True)
    g = gamma.detach().requires_grad_(True)
    y = torch.nn.functional.rms_norm(x, [x.shape[-1]], g, 1e-6)
    return x, g, y


def measure(op, dtype_name, shape, threads, reps):
    torch.set_num_threads(threads)
    dy, x, mean, rstd, gamma = inputs(op, dtype_name, shape)
    elem = torch.tensor([], dtype=DTYPES[dtype_name][1]).element_size()
    numel = int(np.prod(shape))
    if op == "layer_norm_backward":
        M, N = shape
        ms = median_ms(lambda: layer_norm(dy, x, mean, rstd, gamma), reps)
        got = layer_norm(dy, x, mean, rstd, gamma)
        want = layer_norm(dy.double(), x.double(), mean.double(), rstd.double(), gamma.double())
        names = ["dx", "dgamma", "dbeta"]
        errors = dict(zip(names, [max_error(g, w) for g, w in zip(got, want)]))
        wrong = dict(zip(names, [misrounded(g, w) for g, w in zip(got, want)]))
        moved = 3 * numel * elem + 2 * 4 * M + 3 * 4 * N
    elif op == "rms_norm_backward":
        M, N = shape
        xg, gg, y = rms_norm_graph(x, gamma)
        ms = median_ms(lambda: torch.autograd.grad(y, (xg, gg), dy, retain_graph=True), reps)
        got = torch.autograd.grad(y, (xg, gg), dy, retain_graph=True)
        xd, gd, yd = rms_norm_graph(x.double(), gamma.double())
        want = torch.autograd.grad(yd, (xd, gd), dy.double())
        errors = {"dx": max_error(got[0], want[0]), "dgamma": max_error(got[1], want[1])}
        wrong = {"dx": misrounded(got[0], want[0]), "dgamma": misrounded(got[1], want[1])}
        moved = 3 * numel * elem + 4 * M + 2 * 4 * N
    else:
        ms = median_ms(lambda: torch.ops.aten.silu_backward(dy, x), reps)
        got = torch.ops.aten.silu_backward(dy, x)
        want = torch.ops.aten.silu_backward(dy.double(), x.double())
        errors = {"dx": max_error(got, want)}
        wrong = {"dx": misrounded(got, want)}
        moved = 3 * numel * elem
    return {"system": "pytorch " + torch.__version__.split("+")[0], "op": op, "dtype": dtype_name,
            "shape": list(shape), "threads": threads, "ms": round(ms, 4), "gbps": round(moved / (ms * 1e6), 2),
            "max_error": {k: float("%.3e" % v) for k, v in errors.items()},
            "misrounded": {k: float("%.3e" % v) for k, v in wrong.items()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    norm_shapes = [(16384, 1024), (1024, 16384)] if args.quick else \
        [(16384, 1024), (4096, 4096), (1024, 16384), (256, 65536)]
    silu_shape = (1 << 24,) if args.quick else (1 << 26,)
    dtypes = ["float32", "bfloat16"] if args.quick else ["float32", "bfloat16", "float16"]
    cases = [(op, s) for op in ("layer_norm_backward", "rms_norm_backward") for s in norm_shapes]
    cases.append(("silu_backward", silu_shape))
    for op, shape in cases:
        for dtype_name in dtypes:
            for threads in args.threads:
                print(json.dumps(measure(op, dtype_name, shape, threads, args.reps)), flush=True)


if __name__ == "__main__":
    main()
