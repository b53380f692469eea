"""Where the time goes: per node and per op type, onnx2c's generated C against ONNX Runtime.

    /usr/bin/python3 bench/profile.py MODEL [--threads T] [--runs N] [--warmup W] [--top K]
                                      [--scaling [--rounds R]]
                                      [--build-dir DIR] [--onnx2c PATH] [--work DIR] [--no-ort]

MODEL is a bench model (bench/models.py; the int8 q_* models too), made by bench/run.sh or
bench/make_models.py into BUILD/bench/MODEL/model.onnx with its input_I.bin.  This script:
  1. converts it with onnx2c (BUILD/onnx2c, or --onnx2c) into WORK/MODEL.c (WORK defaults to
     BUILD/bench/MODEL/profile, so the bench's own build is left alone) and compiles it with
     bench/driver.c: gcc -O3 -march=native -fopenmp -DPROFILE -DUMODEL_PROFILE (the generated
     C then times every node; see NAME_profile in the generated header) into WORK/bench_profile;
     both steps are skipped when up to date (bench/run.py's build_model);
  2. runs it (OMP_NUM_THREADS=T): W warm-up runs, N profiled runs (driver.c --profile);
  3. runs ONNX Runtime on the same model.onnx with its profiler on (bench/ort.js profile,
     onnxruntime-node from BUILD/node_modules, intra-op threads T), W warm-up runs dropped;
  4. prints (a) a table per op type, (b) the K nodes onnx2c spends most time in, with ORT's time
     for the same node, (c) the sum of the node times against the whole run on each side.

ORT runs an optimized graph: it fuses nodes (a Conv and its activation become one node, named
after the Conv or, in its NCHWc layout, after the last fused output tensor plus "_nchwc") and
adds layout nodes (ReorderInput/ReorderOutput).  ORT's op names are mapped to ONNX's where the
kernel is the same op (FusedConv -> Conv, ...; printed under the table); the others keep their
own rows.  A per-node ORT time is the sum over ORT's nodes that are named like the onnx2c node,
or after one of its output tensors, or after a node (or output) onnx2c fused into it.

(This file's name shadows the standard library's profile module for the scripts of bench/ run
directly; none of them, nor torch or onnx, imports it.)
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run  # noqa: E402  (bench/run.py: build_model, ort_inputs, median, first_error)

# ORT's names of kernels that compute one ONNX op (in its fused or layout-specific form).
ORT_OPS = {
    "FusedConv": "Conv", "NchwcConv": "Conv", "NhwcConv": "Conv",
    "FusedGemm": "Gemm", "FusedMatMul": "MatMul",
    "NchwcMaxPool": "MaxPool", "NhwcMaxPool": "MaxPool",
    "NchwcAveragePool": "AveragePool", "NchwcGlobalAveragePool": "GlobalAveragePool",
    "NchwcGlobalMaxPool": "GlobalMaxPool", "NchwcUpsample": "Resize", "Upsample": "Resize",
}


def parse_profile(text):
    """driver.c --profile / ort.js profile output: (nodes, totals), nodes a list of dicts."""
    nodes, totals = [], {}
    for ln in text.split("\n"):
        f = ln.rstrip("\r").split("\t")
        if f[0] == "node" and len(f) in (7, 8):
            mean = None if f[6] == "-" else float(f[6])
            med = mean if len(f) == 7 or f[7] == "-" else float(f[7])
            nodes.append({"index": int(f[1]), "op": f[2], "name": f[3], "shape": f[4],
                          "note": f[5], "mean": mean, "median": med})
        elif f[0] in ("total", "model_run", "plain") and len(f) >= 2:
            totals[f[0]] = [float(x) for x in f[1:]]
    return nodes, totals


def fused_owner(c_nodes):
    """{name of a node that does not run: the name of the node it was fused into}, from notes
    such as "fused into conv1" (the name after "into" is a node of the graph)."""
    names = {n["name"] for n in c_nodes}
    owner = {}
    for n in c_nodes:
        m = re.search(r"\binto (.+)$", n["note"])
        if n["note"] and m and m.group(1).strip() in names:
            owner[n["name"]] = m.group(1).strip()
    return owner


def follow(name, owner):
    seen = set()
    while name in owner and name not in seen:
        seen.add(name)
        name = owner[name]
    return name


def conv_kind(node, dims):
    """A Conv's kind for the per-kind table: "depthwise 3x3", "1x1", "3x3 s2", "grouped 3x3"
    ...; DIMS: {initializer name: its dims}."""
    at = {a.name: a for a in node.attribute}
    w = dims.get(node.input[1]) if len(node.input) > 1 else None
    if w is None:
        return "weights computed at run time"
    k = list(at["kernel_shape"].ints) if "kernel_shape" in at else list(w[2:])
    group = at["group"].i if "group" in at else 1
    strides = list(at["strides"].ints) if "strides" in at else []
    kind = "x".join(map(str, k))
    if group > 1:
        kind = ("depthwise " if w[1] == 1 else "grouped ") + kind
    if any(x != 1 for x in strides):
        kind += " s" + "x".join(map(str, sorted(set(strides))))
    return kind


class Graph:
    """What the ORT matching needs of the ONNX graph: prod {tensor: name of the node writing
    it}, op {node name: op_type}, first_in {node name: its first input}, kinds {Conv node name:
    its kind}; all empty when python3-onnx is missing."""

    def __init__(self, model_path):
        self.prod, self.op, self.first_in, self.kinds = {}, {}, {}, {}
        try:
            import onnx
        except ImportError:
            return
        g = onnx.load(model_path, load_external_data=False).graph
        dims = {t.name: list(t.dims) for t in g.initializer}
        for n in g.node:
            if not n.name:
                continue
            self.op[n.name] = n.op_type
            self.first_in[n.name] = n.input[0] if n.input else ""
            for o in n.output:
                if o:
                    self.prod[o] = n.name
            if n.op_type == "Conv":
                self.kinds[n.name] = conv_kind(n, dims)


def ort_candidates(name):
    """Names an ORT node may go by in the ONNX graph: its own, then without what ORT's graph
    transformers append ("_token_N" of a copy, "/SomethingFusion/..." of a fusion, "_nchwc" of
    the NCHWc layout, which names a node after its output tensor) or prepend ("fused ")."""
    out = [name]
    for pat in (r"^fused ", r"_token_\d+$", r"/[A-Za-z0-9]+Fusion(/.*)?$", r"_nchwc$"):
        name = re.sub(pat, "", name)
        if name != out[-1]:
            out.append(name)
    return out


def ort_owner(name, ort_op, c_names, g, owner):
    """The onnx2c node an ORT node's time belongs to, or None.  ORT_OP: its op, mapped.  An
    ORT node named after a tensor is the tensor's producer, or, when ORT fused a chain (a Conv
    named after the Relu output it ends in), the nearest node up the chain of first inputs
    whose op is ORT_OP; then onnx2c's fusions lead to the node that runs."""
    for c in ort_candidates(name):
        if c in c_names:
            node = c
        elif c in g.prod:
            node = x = g.prod[c]
            for _ in range(4):
                if g.op.get(node) == ort_op:
                    break
                x = g.prod.get(g.first_in.get(x, ""))
                if x is None:
                    break
                if g.op.get(x) == ort_op:
                    node = x
                    break
        else:
            continue
        if node in c_names:
            return follow(node, owner)
    return None


def fmt(x, digits=3):
    return "-" if x is None else "%.*f" % (digits, x)


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "-"


def share(x, total):
    return "%.1f%%" % (100.0 * x / total) if x is not None and total else "-"


def table(header, rows, right=()):
    rows = [header] + rows
    w = [max(len(r[i]) for r in rows) for i in range(len(header))]
    out = []
    for k, r in enumerate(rows):
        cells = [c.rjust(w[i]) if i in right else c.ljust(w[i]) for i, c in enumerate(r)]
        out.append("  ".join(cells).rstrip())
        if k == 0:
            out.append("  ".join("-" * x for x in w))
    return "\n".join(out)


def build_c(name, a, dest):
    """The profile build of NAME in DEST (skipped when up to date): the executable's path."""
    os.makedirs(dest, exist_ok=True)
    log = {"commands": []}
    exe, err = run.build_model(name, a.models_dir, log, dest=dest, exe_name="bench_profile",
                               defines=["PROFILE", name.upper() + "_PROFILE"])
    if err:
        h = os.path.join(dest, name + ".h")
        if err.startswith("gcc") and os.path.exists(h) and \
                (name + "_profile") not in open(h, errors="replace").read():
            err += ("\n  (%s declares no %s_profile: this onnx2c has no profile build; use one "
                    "with main's 'Profile build' commit)" % (h, name))
        sys.exit("profile: %s\n  %s" % (err, "\n  ".join(log["commands"])))
    return exe


def run_c(a, exe, d, threads):
    """One profiled run of the driver: (nodes, totals, output check)."""
    args = [exe, "--data", d, "--runs", str(a.runs), "--warmup", str(a.warmup), "--profile"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    print("profile: OMP_NUM_THREADS=%d %s" % (threads, run.shjoin(args)), flush=True)
    r = subprocess.run(args, env=env, capture_output=True, text=True, cwd=run.ROOT)
    if r.returncode != 0:
        sys.exit("profile: %s" % run.first_error(r.stderr or r.stdout, "driver"))
    nodes, totals = parse_profile(r.stdout)
    if not nodes or "total" not in totals:
        sys.exit("profile: the driver printed no profile (%s)" % r.stdout[-300:])
    check = next((ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("check ")), "")
    return nodes, totals, check


def profile_c(a, name, d, dest, threads):
    return run_c(a, build_c(name, a, dest), d, threads)


def profile_ort(a, name, threads):
    if a.no_ort:
        return None, None, "--no-ort"
    nm = os.path.join(a.build_dir, "node_modules")
    if not os.path.isdir(os.path.join(nm, "onnxruntime-node")):
        return None, None, "no %s/onnxruntime-node (bench/run.sh installs it)" % nm
    shapes, ins, model, _ = run.ort_inputs(name, a.models_dir)
    args = ["node", "bench/ort.js", "profile", model, shapes, ins, "--threads", str(threads),
            "--runs", str(a.runs), "--warmup", str(a.warmup)]
    env = dict(os.environ, NODE_PATH=os.path.abspath(nm), OMP_NUM_THREADS=str(threads))
    print("profile: NODE_PATH=%s %s" % (nm, run.shjoin(args)), flush=True)
    r = subprocess.run(args, env=env, capture_output=True, text=True, cwd=run.ROOT)
    if r.returncode != 0:
        return None, None, run.first_error(r.stderr or r.stdout, "ort.js")
    nodes, totals = parse_profile(r.stdout)
    return nodes, totals, None


def report(a, name, threads, c_nodes, c_tot, check, o_nodes, o_tot, o_err, model_path):
    runs_c = [n for n in c_nodes if not n["note"]]
    idle = [n for n in c_nodes if n["note"]]
    owner = fused_owner(c_nodes)
    c_names = {n["name"] for n in c_nodes}
    fused_ops = collections.defaultdict(list)
    for n in idle:
        if n["name"] in owner:
            fused_ops[follow(n["name"], owner)].append(n["op"])
    c_sum = sum(n["ms"] or 0 for n in runs_c)
    c_mean, c_median = c_tot["total"][-1], c_tot["total"][0]

    print()
    print("%s, %d thread(s), %d profiled runs after %d warm-up, node times: %s per run; "
          "output check: %s" % (name, threads, a.runs, a.warmup, a.stat, check or "-"))
    print("onnx2c: %d nodes, %d run; ORT: %s" % (
        len(c_nodes), len(runs_c),
        "%d nodes after its graph optimizations" % len(o_nodes) if o_nodes is not None
        else "n/a (%s)" % o_err))
    if idle:
        kinds = collections.defaultdict(collections.Counter)
        for n in idle:
            kinds[re.sub(r"\s+into\s.*$", "", n["note"]).strip() or "?"][n["op"]] += 1
        parts = []
        for k, ops in sorted(kinds.items(), key=lambda kv: -sum(kv[1].values())):
            parts.append("%d %s (%s)" % (sum(ops.values()), k, ", ".join(
                "%s %d" % (op, c) for op, c in ops.most_common())))
        print("%d nodes fused or folded: %s" % (len(idle), "; ".join(parts)))
    never = [n for n in runs_c if n["ms"] is None]
    if never:
        print("%d nodes that run took no call in these runs: %s" % (
            len(never), ", ".join(n["name"] for n in never[:10])))

    # ORT side: each node attributed to the onnx2c node it matches; per op type under that
    # node's op (so both columns count the same work), else under its own op name, mapped.
    g = Graph(model_path)
    c_op = {n["name"]: n["op"] for n in c_nodes}
    o_by_op = collections.defaultdict(float)
    o_count = collections.Counter()
    o_sum = 0.0
    mapped = collections.Counter()
    o_per_c = collections.defaultdict(float)
    o_by_kind = collections.defaultdict(float)
    o_kind_n = collections.Counter()
    unmatched = collections.defaultdict(float)
    unmatched_n = collections.Counter()
    for n in o_nodes or []:
        op = ORT_OPS.get(n["op"], n["op"])
        ms = n["ms"] or 0.0
        own = ort_owner(n["name"], op, c_names, g, owner)
        if own is not None:
            o_per_c[own] += ms
            op = c_op[own]
            if op == "Conv" and own in g.kinds:
                o_by_kind[g.kinds[own]] += ms
                o_kind_n[g.kinds[own]] += 1
        else:
            unmatched[n["op"]] += ms
            unmatched_n[n["op"]] += 1
        if op != n["op"]:
            mapped[(n["op"], op)] += 1
        o_by_op[op] += ms
        o_count[op] += 1
        o_sum += ms

    # (a) per op type
    c_by_op = collections.defaultdict(float)
    c_count = collections.Counter()
    for n in runs_c:
        c_by_op[n["op"]] += n["ms"] or 0.0
        c_count[n["op"]] += 1
    ops = sorted(c_by_op, key=lambda op: -c_by_op[op])
    ops += sorted((op for op in o_by_op if op not in c_by_op), key=lambda op: -o_by_op[op])
    rows = []
    for op in ops:
        cm = c_by_op.get(op)
        om = o_by_op.get(op) if o_nodes is not None else None
        rows.append([op, str(c_count.get(op, 0)) + "/" + (str(o_count.get(op, 0))
                                                          if o_nodes is not None else "-"),
                     fmt(cm), share(cm, c_sum), fmt(om), share(om, o_sum), ratio(cm, om)])
    rows.append(["sum", "%d/%s" % (len(runs_c), len(o_nodes) if o_nodes is not None else "-"),
                 fmt(c_sum), "100%", fmt(o_sum if o_nodes is not None else None),
                 "100%" if o_nodes else "-", ratio(c_sum, o_sum)])
    print()
    print("Per op type (ms per run; nodes onnx2c/ORT; share of the side's node-time sum; "
          "ratio onnx2c / ORT):")
    print(table(["op", "nodes", "onnx2c ms", "share", "ORT ms", "ORT share", "ratio"], rows,
                right={1, 2, 3, 4, 5, 6}))
    if mapped:
        print("ORT nodes counted under another op (ORT op -> row, nodes): " + ", ".join(
            "%s -> %s %d" % (k[0], k[1], c) for k, c in sorted(mapped.items())))
    if o_nodes is not None:
        print("An ORT node counts under the op of the onnx2c node it matches (see the top "
              "list), else under its own op (ReorderInput/ReorderOutput: ORT's NCHWc layout "
              "conversions); an op's time includes the nodes fused into it on that side.")

    # (a') Conv by kind
    c_by_kind = collections.defaultdict(float)
    c_kind_n = collections.Counter()
    for n in runs_c:
        if n["op"] == "Conv" and n["name"] in g.kinds:
            c_by_kind[g.kinds[n["name"]]] += n["ms"] or 0.0
            c_kind_n[g.kinds[n["name"]]] += 1
    if len(set(c_by_kind) | set(o_by_kind)) > 1:
        rows = []
        for k in sorted(set(c_by_kind) | set(o_by_kind),
                        key=lambda k: -c_by_kind.get(k, 0)):
            cm, om = c_by_kind.get(k), o_by_kind.get(k) if o_nodes is not None else None
            rows.append([k, "%d/%s" % (c_kind_n[k], o_kind_n[k] if o_nodes is not None else "-"),
                         fmt(cm), share(cm, c_sum), fmt(om), share(om, o_sum), ratio(cm, om)])
        print()
        print("Conv by kind (kernel, depthwise/grouped, stride; ORT's Conv nodes by the onnx2c "
              "node they match):")
        print(table(["Conv", "nodes", "onnx2c ms", "share", "ORT ms", "ORT share", "ratio"],
                    rows, right={1, 2, 3, 4, 5, 6}))

    # (b) top K nodes
    top = sorted(runs_c, key=lambda n: -(n["ms"] or 0))[:a.top]
    rows = []
    for k, n in enumerate(top, 1):
        om = o_per_c.get(n["name"]) if o_nodes is not None else None
        op = "+".join([n["op"]] + fused_ops.get(n["name"], []))
        if n["name"] in g.kinds:
            op += " (%s)" % g.kinds[n["name"]]
        rows.append([str(k), fmt(n["ms"]), share(n["ms"], c_sum), fmt(om), ratio(n["ms"], om),
                     op, n["shape"], n["name"]])
    print()
    print("Top %d nodes by onnx2c time (ms per run; op+ops fused into it by onnx2c, a Conv's "
          "kind; ORT ms: ORT's nodes of this name, of its outputs' names or of the nodes fused "
          "into it):" % len(top))
    print(table(["#", "onnx2c ms", "share", "ORT ms", "ratio", "op", "shape", "node"], rows,
                right={0, 1, 2, 3, 4}))
    top_c = sum(n["ms"] or 0 for n in top)
    top_o = sum(o_per_c.get(n["name"], 0) for n in top)
    print("these %d nodes: onnx2c %.3f ms (%s), ORT %s" % (
        len(top), top_c, share(top_c, c_sum),
        "%.3f ms on the same nodes" % top_o if o_nodes is not None else "-"))
    if o_nodes is not None:
        um = sum(unmatched.values())
        print("ORT nodes matched to an onnx2c node: %d of %d (%.3f of %.3f ms)%s" % (
            len(o_nodes) - sum(unmatched_n.values()), len(o_nodes), o_sum - um, o_sum,
            ("; not matched: " + ", ".join(
                "%s %d (%.3f ms)" % (op, unmatched_n[op], unmatched[op])
                for op in sorted(unmatched, key=lambda op: -unmatched[op]))) if unmatched else ""))

    # (c) node sums against the whole run
    print()
    c_means = sum(n["mean"] or 0 for n in runs_c)
    c_meds = sum(n["median"] or 0 for n in runs_c)
    pct = 100.0 * c_means / c_mean if c_mean else 0
    print("onnx2c: node means sum to %.3f ms = %.1f%% of the mean run %.3f ms%s" % (
        c_means, pct, c_mean,
        "" if 90 <= pct <= 110 else "  <-- outside 90-110%: the profile misses time"))
    print("        node medians sum to %.3f ms = %.1f%% of the median run %.3f ms" % (
        c_meds, 100.0 * c_meds / c_median if c_median else 0, c_median))
    if o_nodes is not None and o_tot.get("total"):
        o_mean, o_median = o_tot["total"][-1], o_tot["total"][0]
        o_means = sum(n["mean"] or 0 for n in o_nodes)
        o_meds = sum(n["median"] or 0 for n in o_nodes)
        mr = o_tot.get("model_run", [None])[0]
        print("ORT:    node means sum to %.3f ms = %.1f%% of the mean session.run %.3f ms%s" % (
            o_means, 100.0 * o_means / o_mean, o_mean,
            " (ORT's own model_run: %.3f ms)" % mr if mr else ""))
        print("        node medians sum to %.3f ms = %.1f%% of the median session.run %.3f ms" % (
            o_meds, 100.0 * o_meds / o_median, o_median))
        print("ORT's node times leave out its executor's work between kernels (allocation, "
              "fences) that session.run includes.")
        plain = o_tot.get("plain")
        if plain:
            print("ORT without its profiler: median session.run %.3f ms: the profiler made its "
                  "runs %+.0f%% (a few us per node: read small nodes' ORT times as upper bounds)"
                  % (plain[0], 100.0 * (o_median / plain[0] - 1)))
        print("whole run, onnx2c / ORT: %s (medians, both sides profiled)%s" % (
            ratio(c_median, o_median),
            "; %s against ORT without its profiler" % ratio(c_median, plain[0]) if plain else ""))

def scaling(a, name, d, dest, model_path):
    """--scaling: each node's time on 1 thread and on a.threads, the two alternating for
    a.rounds rounds (a node's time: the median over the rounds of its per-run a.stat), and
    ORT's whole run the same way (its profiler off).  Where the threads gain least."""
    exe = build_c(name, a, dest)
    per = {1: collections.defaultdict(list), a.threads: collections.defaultdict(list)}
    tot = {1: [], a.threads: []}
    ort = {1: [], a.threads: []}
    info, order, check = {}, [], ""
    for _ in range(a.rounds):
        for t in (1, a.threads):
            nodes, totals, ck = run_c(a, exe, d, t)
            check = check or ck
            for n in nodes:
                if n["note"]:
                    continue
                if n["name"] not in info:
                    info[n["name"]] = n
                    order.append(n["name"])
                per[t][n["name"]].append(n[a.stat] or 0.0)
            tot[t].append(totals["total"][0])
            if not a.no_ort:
                _, o_tot, o_err = profile_ort(a, name, t)
                if o_tot and "plain" in o_tot:
                    ort[t].append(o_tot["plain"][0])
    T = a.threads
    g = Graph(model_path)
    med = run.median
    rows = []
    for nm in order:
        t1, tn = med(per[1][nm]), med(per[T][nm])
        op = info[nm]["op"]
        if op == "Conv" and nm in g.kinds:
            op += " (%s)" % g.kinds[nm]
        rows.append((t1, tn, op, info[nm]["shape"], nm))
    sum1 = sum(r[0] for r in rows)
    gain = sum(r[0] - r[1] for r in rows)
    print()
    print("%s: 1 against %d threads, %d rounds alternating, each %d runs after %d warm-up; "
          "node times: %s per run; output check: %s" % (name, T, a.rounds, a.runs, a.warmup,
                                                        a.stat, check or "-"))
    print("whole run (median of the rounds' medians): onnx2c %s ms -> %s ms, speed-up %s%s" % (
        fmt(med(tot[1])), fmt(med(tot[T])), ratio(med(tot[1]), med(tot[T])),
        "; ORT %s ms -> %s ms, speed-up %s" % (fmt(med(ort[1])), fmt(med(ort[T])),
                                                ratio(med(ort[1]), med(ort[T])))
        if ort[1] and ort[T] else ""))
    print("spread (max - min) / median of the whole runs: onnx2c 1T %.0f%%, %dT %.0f%%" % (
        100.0 * (max(tot[1]) - min(tot[1])) / med(tot[1]), T,
        100.0 * (max(tot[T]) - min(tot[T])) / med(tot[T])))
    kinds = collections.OrderedDict()
    for t1, tn, op, _, _ in rows:
        k = kinds.setdefault(op, [0, 0.0, 0.0])
        k[0] += 1
        k[1] += t1
        k[2] += tn
    print()
    print("By op (and Conv kind), sorted by the time the threads leave on the table "
          "(1T / %d - %dT):" % (T, T))
    krows = sorted(kinds.items(), key=lambda kv: -(kv[1][2] - kv[1][1] / T))
    print(table(["op", "nodes", "1T ms", "%dT ms" % T, "speed-up", "share of 1T"],
                [[op, str(k[0]), fmt(k[1]), fmt(k[2]), ratio(k[1], k[2]), share(k[1], sum1)]
                 for op, k in krows],
                right=(1, 2, 3, 4, 5)))
    print()
    print("Top %d nodes by the time the threads leave on the table (1T / %d - %dT):" % (
        a.top, T, T))
    top = sorted(rows, key=lambda r: -(r[1] - r[0] / T))[:a.top]
    print(table(["#", "1T ms", "%dT ms" % T, "speed-up", "lost ms", "op", "shape", "node"],
                [[str(i + 1), fmt(r[0]), fmt(r[1]), ratio(r[0], r[1]), fmt(r[1] - r[0] / T),
                  r[2], r[3], r[4]] for i, r in enumerate(top)],
                right=(0, 1, 2, 3, 4)))
    print()
    print("node times sum to %s ms on 1 thread and %s ms on %d: the threads saved %s ms, "
          "%s of the 1-thread time" % (fmt(sum1), fmt(sum1 - gain), T, fmt(gain),
                                        share(gain, sum1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a bench model: %s" % " ".join(run.ORDER + run.QUANT))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20, help="profiled runs per side (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up runs per side (default 3)")
    ap.add_argument("--top", type=int, default=25, help="nodes in the top list (default 25)")
    ap.add_argument("--stat", choices=("median", "mean"), default="median",
                    help="a node's time per run: the median over the runs (default; a run "
                         "slowed down by other work on the machine moves it less) or the mean")
    ap.add_argument("--build-dir", default="build",
                    help="models in DIR/bench, onnxruntime-node in DIR/node_modules, onnx2c "
                         "DIR/onnx2c (default build)")
    ap.add_argument("--onnx2c", help="the onnx2c binary (default BUILD/onnx2c)")
    ap.add_argument("--work", help="where the profile build goes (default "
                                   "BUILD/bench/MODEL/profile)")
    ap.add_argument("--no-ort", action="store_true", help="onnx2c's side only")
    ap.add_argument("--scaling", action="store_true",
                    help="per node, 1 thread against --threads (>= 2), alternating for "
                         "--rounds rounds: where the threads gain least; ORT's whole run beside")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --scaling (default 3)")
    a = ap.parse_args()
    name = a.model
    if name not in run.ORDER + run.QUANT:
        sys.exit("profile: unknown model %r (known: %s)" % (name, " ".join(run.ORDER + run.QUANT)))
    if a.runs < 1 or a.warmup < 0 or a.top < 1:
        sys.exit("profile: --runs and --top must be >= 1, --warmup >= 0")
    a.build_dir = os.path.abspath(a.build_dir)
    a.models_dir = os.path.join(a.build_dir, "bench")
    run.ONNX2C = os.path.abspath(a.onnx2c or os.path.join(a.build_dir, "onnx2c"))
    d = os.path.join(a.models_dir, name)
    model = os.path.join(d, "model.onnx")
    dest = os.path.abspath(a.work or os.path.join(d, "profile"))
    os.chdir(run.ROOT)
    if not os.path.exists(model):
        sys.exit("profile: no %s (make it with bench/run.sh, or /usr/bin/python3 "
                 "bench/make_models.py --out %s %s)" % (model, a.models_dir, name))
    if not os.access(run.ONNX2C, os.X_OK):
        sys.exit("profile: no onnx2c at %s (build it, or pass --onnx2c)" % run.ONNX2C)
    if a.scaling:
        if a.threads < 2 or a.rounds < 1:
            sys.exit("profile: --scaling needs --threads >= 2 and --rounds >= 1")
        scaling(a, name, d, dest, model)
        return
    c_nodes, c_tot, check = profile_c(a, name, d, dest, a.threads)
    o_nodes, o_tot, o_err = profile_ort(a, name, a.threads)
    for n in c_nodes + (o_nodes or []):
        n["ms"] = n[a.stat]
    report(a, name, a.threads, c_nodes, c_tot, check, o_nodes, o_tot, o_err, model)


if __name__ == "__main__":
    main()
