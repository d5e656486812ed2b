#!/usr/bin/env python3
"""PyTorch on the GPU beside `gradops bench --device cuda`: LayerNorm backward
(aten native_layer_norm_backward), RMSNorm backward (_fused_rms_norm_backward
where this PyTorch has it) and SiLU backward (silu_backward), each timed with
triton.testing.do_bench (median) or CUDA events, and a device-to-device copy
for the ceiling. Bytes counted as gradops counts them (x and dy read, dx
written, plus the per-row and per-column vectors). Prints JSON lines, or a
table with --table.

  python3 bench/peers/torch_cuda.py [--quick] [--table]
"""
import argparse
import json
import sys

import torch

NORM_SHAPES = [(65536, 1024), (16384, 4096), (8192, 8192), (4096, 16384), (1024, 65536)]
SILU_SIZES = [1 << 26, 1 << 28]
DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}


def timer():
    try:
        from triton.testing import do_bench

        return lambda fn: do_bench(fn, warmup=25, rep=100, return_mode="median")
    except Exception:  # no Triton: CUDA events, median of 20
        def events(fn):
            fn()
            torch.cuda.synchronize()
            times = []
            for _ in range(20):
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            return sorted(times)[len(times) // 2]
        return events


def rand(shape, dtype, lo, hi):
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * (hi - lo) + lo).to(dtype)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("torch_cuda: no CUDA device", file=sys.stderr)
        return 1
    bench = timer()
    norm_shapes = NORM_SHAPES[::4] if args.quick else NORM_SHAPES
    silu_sizes = SILU_SIZES[:1] if args.quick else SILU_SIZES

    n = 1 << 28
    src, dst = torch.empty(n, dtype=torch.float32, device="cuda").uniform_(), torch.empty(n, dtype=torch.float32, device="cuda")
    ceiling = 2 * n * 4 / (bench(lambda: dst.copy_(src)) * 1e6)
    del src, dst
    rows = [{"op": "copy", "impl": "torch", "dtype": "float32", "shape": [n], "gbps": round(ceiling, 2)}]

    for name, dtype in DTYPES.items():
        e = torch.tensor([], dtype=dtype).element_size()
        for M, N in norm_shapes:
            dy, x = rand((M, N), dtype, -3, 3), rand((M, N), dtype, -3, 3)
            gamma, beta = rand((N,), dtype, -3, 3), rand((N,), dtype, -3, 3)
            mean = rand((M, 1), torch.float32, -1, 1)
            rstd = rand((M, 1), torch.float32, 0.1, 3)
            ln = lambda: torch.ops.aten.native_layer_norm_backward(dy, x, [N], mean, rstd, gamma, beta, [True, True, True])
            ms = bench(ln)
            moved = 3 * M * N * e + 2 * 4 * M + 3 * N * e
            rows.append({"op": "layer_norm_backward", "impl": "torch", "dtype": name, "shape": [M, N], "ms": ms,
                         "gbps": moved / (ms * 1e6)})
            rms = getattr(torch.ops.aten, "_fused_rms_norm_backward", None)
            if rms is not None:
                try:
                    fn = lambda: rms(dy, x, [N], rstd, gamma, [True, True])
                    ms = bench(fn)
                    moved = 3 * M * N * e + 4 * M + N * e + 4 * N
                    rows.append({"op": "rms_norm_backward", "impl": "torch", "dtype": name, "shape": [M, N],
                                 "ms": ms, "gbps": moved / (ms * 1e6)})
                except Exception as error:  # signature differs in this PyTorch
                    print(f"torch_cuda: _fused_rms_norm_backward: {error}", file=sys.stderr)
            del dy, x
            torch.cuda.empty_cache()
        for size in silu_sizes:
            dy, x = rand((size,), dtype, -3, 3), rand((size,), dtype, -8, 8)
            ms = bench(lambda: torch.ops.aten.silu_backward(dy, x))
            rows.append({"op": "silu_backward", "impl": "torch", "dtype": name, "shape": [size], "ms": ms,
                         "gbps": 3 * size * e / (ms * 1e6)})
            del dy, x
            torch.cuda.empty_cache()

    for r in rows:
        r["ratio"] = round(r["gbps"] / ceiling, 4)
        if args.table:
            shape = "x".join(str(s) for s in r["shape"])
            print(f"{r['op']:<22} {r['dtype']:<9} {shape:<11} {r.get('ms', 0):10.4f} {r['gbps']:8.1f} {r['ratio']:7.2f}")
        else:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
