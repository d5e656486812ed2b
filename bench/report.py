#!/usr/bin/env python3
"""Runs gradops and its peers side by side and writes docs/performance.md
and docs/performance.png.

In one run, on this machine: `gradops bench --json` (the triad ceiling and
every operator), `gradops accuracy` (errors on the same inputs), the oneDNN
peer (bench/peers/onednn_layer_norm.cc, built as build/onednn_layer_norm)
and the PyTorch peer (bench/peers/torch_cpu.py), all at 1 thread and at all
threads, on the benchmark's shapes. Peers that are missing are reported as
missing, never estimated.

    python3 bench/report.py [--build build] [--python PY] [--quick] [--huge-pages] [--staggered] [--tag NAME]

--huge-pages runs everything on memory advised for large pages (gradops and
oneDNN through their --huge-pages flags, PyTorch through its
THP_MEM_ALLOC_ENABLE=1) and writes performance-latest-huge-pages.md and
performance-huge-pages.png instead. --staggered places the tensors of gradops
and oneDNN (which share them) at staggered offsets within their pages, as
aclrtMalloc does on the CPU; PyTorch allocates its own as ever. It writes
performance-latest-staggered.md and performance-staggered.png (both flags:
-huge-pages-staggered). --tag NAME puts -NAME first in those suffixes, to keep
the record of another machine beside the main one.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return out.stdout


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def shape_text(shape):
    return "x".join(str(s) for s in shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--python", default=sys.executable, help="a Python with torch, for the PyTorch peer")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--huge-pages", action="store_true", help="every tensor on large pages, for every system")
    parser.add_argument("--staggered", action="store_true",
                        help="gradops' and oneDNN's tensors at staggered page offsets (as aclrtMalloc places them)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"))
    parser.add_argument("--tag", default="", help="a name for this machine in the files' names (e.g. avx2)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)  # before the runs: a missing folder would lose them at the end
    threads_all = os.cpu_count() or 1
    quick = ["--quick"] if args.quick else []
    memory = (["--huge-pages"] if args.huge_pages else []) + (["--staggered"] if args.staggered else [])
    args.suffix = (("-" + args.tag if args.tag else "") + ("-huge-pages" if args.huge_pages else "") +
                   ("-staggered" if args.staggered else ""))

    gradops = os.path.join(args.build, "gradops")
    bench = json.loads(run([gradops, "bench", "--json"] + quick + memory))
    accuracy = json_lines(run([gradops, "accuracy"] + quick))
    thread_counts = sorted({row["threads"] for row in bench})

    norm_shapes = sorted({tuple(r["shape"]) for r in bench if r["op"] == "layer_norm_backward"})
    peers = []
    onednn = os.path.join(args.build, "onednn_layer_norm")
    onednn_status = "not built (libdnnl-dev missing)"
    if os.path.exists(onednn):
        for t in thread_counts:
            for dtype in ("float32", "bfloat16"):
                cmd = [onednn] + memory + [str(t), "3" if args.quick else "7", dtype]
                for m, n in norm_shapes:
                    cmd += [str(m), str(n)]
                peers += [r for r in json_lines(run(cmd)) if r["system"] == "onednn"]
        onednn_status = "oneDNN " + (run(["dpkg-query", "-W", "-f=${Version}", "libdnnl-dev"]).strip() or "?")
        unsupported = sorted({r["dtype"] for r in peers if "unsupported" in r})
        if unsupported:
            onednn_status += " (no %s implementation on this CPU)" % ", ".join(unsupported)
        peers = [r for r in peers if "unsupported" not in r]
    torch_status = "not available"
    try:
        torch_rows = json_lines(run([args.python, os.path.join(ROOT, "bench/peers/torch_cpu.py"), "--threads"]
                                    + [str(t) for t in thread_counts] + ["--reps", "3" if args.quick else "7"]
                                    + quick, env=dict(os.environ, THP_MEM_ALLOC_ENABLE="1" if args.huge_pages else "0")))
        peers += torch_rows
        if torch_rows:
            torch_status = torch_rows[0]["system"]
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        torch_status = "failed: %s" % e

    write_markdown(args, bench, accuracy, peers, onednn_status, torch_status, threads_all)
    write_chart(args, bench, peers)


def key(r):
    return (r["op"], r["dtype"], tuple(r["shape"]), r["threads"])


def write_markdown(args, bench, accuracy, peers, onednn_status, torch_status, threads_all):
    today = datetime.date.today().isoformat()
    peer_by = {}
    for p in peers:
        peer_by.setdefault(key(p), {})[p["system"].split()[0]] = p
    acc_by = {(a["op"], a["dtype"], tuple(a["shape"])): a for a in accuracy}
    lines = []
    lines.append("## Run of %s on %s (%d hardware threads)" % (today, cpu_name(), threads_all))
    lines.append("")
    ranges = []
    for t in sorted({r["threads"] for r in bench}):
        c = [r["ceiling_gbps"] for r in bench if r["threads"] == t]
        ranges.append("%d thread%s %.1f-%.1f GB/s" % (t, "s" if t > 1 else "", min(c), max(c)))
    lines.append("Ceiling, for each row: a triad with the same threads (plain or non-temporal stores, whichever "
                 "was faster at the start) just before and just after the row, the larger of the two; over the "
                 "rows: " + ", ".join(ranges) + ".")
    lines.append("Memory: %s%s." % ("every tensor and the triad's arrays advised for large pages (--huge-pages; "
                                    "PyTorch with THP_MEM_ALLOC_ENABLE=1)" if args.huge_pages else "ordinary pages",
                                    "; gradops' and oneDNN's tensors and the triad's arrays staggered within their "
                                    "pages as aclrtMalloc places them (--staggered; PyTorch on its own allocator)"
                                    if args.staggered else "") +
                 " Every timed call starts from memory: each system reads a buffer of twice the last-level cache "
                 "before it.")
    lines.append("Peers: %s; %s. GB/s counts x and dy read and dx written (3*M*N*element) plus the small "
                 "vectors; ratio = GB/s / ceiling." % (onednn_status, torch_status))
    lines.append("")
    lines.append("| operator | dtype | shape | threads | gradops ms | GB/s | ceiling GB/s | ratio | oneDNN GB/s "
                 "| PyTorch GB/s |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in bench:
        p = peer_by.get(key(r), {})
        fmt = lambda s: "%.1f" % p[s]["gbps"] if s in p else "-"
        lines.append("| %s | %s | %s | %d | %.3f | %.1f | %.1f | %.2f | %s | %s |" % (
            r["op"], r["dtype"], shape_text(r["shape"]), r["threads"], r["ms"], r["gbps"], r["ceiling_gbps"],
            r["ratio"], fmt("onednn"), fmt("pytorch")))
    lines.append("")
    lines.append("Accuracy on identical inputs: largest |error| / max(1, max|reference|) per output, against the "
                 "float64 reference (gradops, oneDNN) or the same operation in float64 (PyTorch). dgamma/dbeta are "
                 "float32 for every system.")
    lines.append("")
    accuracy_table(lines, acc_by, peer_by, "max_error")
    lines.append("Outputs not correctly rounded: the share of each output's elements other than its reference "
                 "(as above) rounded once to the output's dtype, to nearest even. A correctly rounded result "
                 "scores 0; on 16-bit outputs this counts the arithmetic's errors that crossed a rounding "
                 "boundary, which the largest error above, set by the final rounding for every system, does not "
                 "tell apart.")
    lines.append("")
    accuracy_table(lines, acc_by, peer_by, "misrounded")
    path = os.path.join(args.out, "performance-latest%s.md" % args.suffix)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", path, file=sys.stderr)


def accuracy_table(lines, acc_by, peer_by, measure):
    """One row per norm or SiLU case: `measure` (a dict of output -> value) for gradops and each peer."""
    lines.append("| operator | dtype | shape | gradops | oneDNN | PyTorch |")
    lines.append("|---|---|---|---|---|---|")
    for (op, dtype, shape), a in sorted(acc_by.items()):
        if op not in ("layer_norm_backward", "rms_norm_backward", "silu_backward"):
            continue
        p = {}
        for k, v in peer_by.items():
            if k[:3] == (op, dtype, shape):
                p.update(v)
        err = lambda r: " ".join("%s %.1e" % (k, v) for k, v in r[measure].items()) if measure in r else "-"
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            op, dtype, shape_text(shape), err(a), err(p["onednn"]) if "onednn" in p else "-",
            err(p["pytorch"]) if "pytorch" in p else "-"))
    lines.append("")


def write_chart(args, bench, peers):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart", file=sys.stderr)
        return
    t = max(r["threads"] for r in bench)
    ops = ["layer_norm_backward", "rms_norm_backward", "silu_backward"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, dtype in zip(axes, ["float32", "bfloat16"]):
        labels, ceilings, series = [], [], {"gradops": [], "oneDNN": [], "PyTorch": []}
        for r in bench:
            if r["threads"] != t or r["dtype"] != dtype or r["op"] not in ops:
                continue
            labels.append("%s\n%s" % (r["op"].replace("_backward", ""), shape_text(r["shape"])))
            series["gradops"].append(r["gbps"])
            ceilings.append(r["ceiling_gbps"])
            for name, sys_key in (("oneDNN", "onednn"), ("PyTorch", "pytorch")):
                match = [p["gbps"] for p in peers if key(p) == key(r) and p["system"].startswith(sys_key)]
                series[name].append(match[0] if match else 0)
        width = 0.27
        for i, (name, values) in enumerate(series.items()):
            ax.bar([x + (i - 1) * width for x in range(len(labels))], values, width, label=name)
        ax.plot(range(len(labels)), ceilings, color="black", marker="_", markersize=22, linestyle="none",
                label="triad ceiling beside the row")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=7, rotation=60)
        ax.set_title("%s, %d threads" % (dtype, t))
        ax.set_ylabel("GB/s")
    axes[0].legend()
    fig.tight_layout()
    path = os.path.join(args.out, "performance%s.png" % args.suffix)
    fig.savefig(path, dpi=110)
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
