"""The benchmark orchestrator behind bench/run.sh (which builds onnx2c and the models first).

    /usr/bin/python3 bench/run.py [--quick] [--threads "1 2"] [--models LIST] [--rounds R]
                                  [--runs K] [--docs | --no-docs] [--build-dir DIR] [--out DIR]

Per model of LIST (default: resnet18 mobilenet_v2 segnet correlation transformer squeezenet
mobilenet_v3 lraspp facedet gemm):
  1. converts OUT/NAME/model.onnx with ./build/onnx2c (when NAME.c is older than onnx2c or the
     model), compiles the C with bench/driver.c (gcc -O3 -march=native -fopenmp) into
     OUT/NAME/bench (when older than its sources); a failure makes the row
     "n/a (onnx2c: <error line>)" or "n/a (gcc: <error line>)" and the run goes on;
  2. per thread count T: starts the C driver (OMP_NUM_THREADS=T, checks its output against
     PyTorch's, warms up), bench/torch_bench.py (torch.set_num_threads(T), eager and
     optimize_for_inference, warmed up) and ONNX Runtime (bench/ort.js serve on the same
     model.onnx, intraOpNumThreads T, inter-op 1, sequential, optimizations all; checks its
     outputs against PyTorch's under the driver's tolerance, warms up) as long-lived processes,
     then R rounds: K runs of the C side, K of each PyTorch variant, K of ONNX Runtime, the order
     alternating from round to round, so load changes of the shared machine hit every side; the
     medians are over all R*K runs of a side.
GEMM: bench/gemm.c (templates/gemm.c at 1024^3) against a mkldnn Linear (oneDNN), torch.mm and
ONNX Runtime on a one-MatMul model (OUT/gemm/matmul.onnx, written here).
Int8 models (q_resnet18 q_mobilenet_v2, only when named in LIST; bench/make_quant_models.py
writes them): onnx2c's C of the int8 QDQ model, onnx2c's C of the float model of the same
network, ONNX Runtime (bench/ort.js serve, onnxruntime-node from BUILD/node_modules) on the int8
file and on the float file, alternating in rounds the same way; the int8 C's outputs on 8 inputs
are compared with ONNX Runtime's (max |diff|, in output quantization steps too, and top-1
agreement), the float C's with PyTorch's as for the float models.
Prints the table, writes OUT/benchmarks.md, and docs/benchmarks.md for a full run (all models,
not --quick) or with --docs.
"""
import argparse
import datetime
import json
import os
import platform
import re
import select
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from models import MODELS, ORDER  # noqa: E402

PY = "/usr/bin/python3"
ONNX2C = os.path.join("build", "onnx2c")
CFLAGS = ["-O3", "-march=native", "-fopenmp"]
ALL = ORDER + ["gemm"]
QUANT = ["q_resnet18", "q_mobilenet_v2"]  # int8 QDQ models (bench/make_quant_models.py)
KNOWN = ALL + QUANT
NODE_MODULES = os.path.join("build", "node_modules")
GEMM_N = 1024
TIMEOUT = 900  # seconds for one command to a server (a round of K runs, or start-up)


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def spread(xs):
    """Interquartile range over the median, in percent: how noisy a side's runs were."""
    s = sorted(xs)
    if len(s) < 4:
        return None
    q = lambda f: s[min(len(s) - 1, int(round(f * (len(s) - 1))))]  # noqa: E731
    return 100.0 * (q(0.75) - q(0.25)) / median(s)


def first_error(text, prog):
    """The most telling line of a tool's stderr, shortened for a table cell."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    pick = None
    for ln in lines:
        if "error" in ln.lower():
            pick = ln
            break
    pick = pick or (lines[0] if lines else "failed without a message")
    pick = re.sub(r"^onnx2c: error: ", "", pick)
    pick = pick.replace("|", "/")
    if len(pick) > 160:
        pick = pick[:157] + "..."
    return "%s: %s" % (prog, pick)


def newer(target, *sources):
    if not os.path.exists(target):
        return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(s) < t for s in sources if os.path.exists(s))


def shjoin(args):
    return " ".join(shlex.quote(a) for a in args)


class Server:
    """A long-lived benchmark process speaking the line protocol of driver.c / torch_bench.py."""

    def __init__(self, args, env, errpath):
        self.args = args
        self.err = open(errpath, "w")
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, env=env, cwd=ROOT)
        self.buf = b""
        self.errpath = errpath

    def readline(self, timeout=TIMEOUT):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                raise RuntimeError("timed out after %d s" % timeout)
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    raise RuntimeError(self.failure())
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    def failure(self):
        rc = self.p.wait()
        self.err.flush()
        with open(self.errpath, errors="replace") as f:
            text = f.read()
        msg = first_error(text, "exit %d" % rc) if text.strip() else "exited with %d" % rc
        return msg

    def until(self, prefix):
        """Lines up to the one starting with prefix: (that line, the lines before it)."""
        before = []
        while True:
            ln = self.readline()
            if ln.startswith(prefix):
                return ln, before
            before.append(ln)

    def times(self, cmd):
        self.p.stdin.write((cmd + "\n").encode())
        self.p.stdin.flush()
        ln, _ = self.until("times")
        return [float(x) for x in ln.split()[1:]]

    def close(self):
        try:
            self.p.stdin.write(b"quit\n")
            self.p.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()


def build_model(name, out, log, dest=None, defines=(), exe_name="bench"):
    """Converts and compiles NAME; returns (binary path, None) or (None, 'n/a (...)' text).
    The C and the binary go to DEST (default OUT/NAME, beside the model); DEFINES are extra
    gcc -D flags (bench/profile.py: PROFILE and UNAME_PROFILE)."""
    d = os.path.join(out, name)
    dest = dest or d
    model = os.path.join(d, "model.onnx")
    c = os.path.join(dest, name + ".c")
    h = os.path.join(dest, name + ".h")
    exe = os.path.join(dest, exe_name)
    conv = [ONNX2C, model, "-o", c, "--name", name]
    cc = (["gcc"] + CFLAGS + ["-D" + x for x in defines] +
          ['-DMODEL_HEADER="%s.h"' % name, "-DPREFIX=" + name, "-DUPREFIX=" + name.upper(),
           "-I", dest, "bench/driver.c", c, "-lm", "-o", exe])
    log["commands"] += [shjoin(conv), shjoin(cc)]
    if not os.path.exists(model):
        return None, "make_models: no %s" % model
    if not (newer(c, ONNX2C, model) and os.path.exists(h)):
        t0 = time.time()
        r = subprocess.run(conv, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            for f in (c, h, exe):
                if os.path.exists(f):
                    os.remove(f)
            return None, first_error(r.stderr, "onnx2c")
        print("  onnx2c %s: %.1f s, %.1f MB of C" % (name, time.time() - t0,
                                                   os.path.getsize(c) / 1e6), flush=True)
    if not newer(exe, c, h, "bench/driver.c"):
        t0 = time.time()
        r = subprocess.run(cc, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            if os.path.exists(exe):
                os.remove(exe)
            return None, first_error(r.stderr, "gcc")
        print("  gcc %s: %.1f s" % (name, time.time() - t0), flush=True)
    return exe, None


def build_gemm(out, log):
    d = os.path.join(out, "gemm")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "gemm")
    cc = ["gcc"] + CFLAGS + ["bench/gemm.c", "-lm", "-o", exe]
    log["commands"].append(shjoin(cc))
    write_matmul(d)
    if not newer(exe, "bench/gemm.c", "templates/gemm.c", "templates/o2c_template.h"):
        r = subprocess.run(cc, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            return None, first_error(r.stderr, "gcc")
    return exe, None


def write_matmul(d):
    """ORT's side of the GEMM row: D/matmul.onnx, one MatMul of a 1024x1024 float input by a
    constant 1024x1024 initializer, and D/matmul_in.bin (random normal, seed 0)."""
    path, xin = os.path.join(d, "matmul.onnx"), os.path.join(d, "matmul_in.bin")
    if os.path.exists(path) and os.path.exists(xin):
        return
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    n = GEMM_N
    w = numpy_helper.from_array(rng.standard_normal((n, n), dtype=np.float32), "B")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["C"])], "gemm",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, [n, n])], initializer=[w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="onnx2c-bench")
    rng.standard_normal((n, n), dtype=np.float32).tofile(xin)
    onnx.save(model, path + ".tmp")
    os.replace(path + ".tmp", path)


def ort_inputs(name, out):
    """bench/ort.js's arguments for NAME: SHAPES and INS (joined by colons), the model file and
    the --check option (empty for the GEMM row's MatMul)."""
    d = os.path.join(out, name)
    if name == "gemm":
        shapes, ins = "%d,%d" % (GEMM_N, GEMM_N), os.path.join(d, "matmul_in.bin")
        return shapes, ins, os.path.join(d, "matmul.onnx"), []
    spec = MODELS[name[2:] if name in QUANT else name]
    shapes = ":".join(",".join(map(str, sh)) for sh in spec.shapes)
    ins = ":".join(os.path.join(d, "input_%d.bin" % i) for i in range(len(spec.shapes)))
    return shapes, ins, os.path.join(d, "model.onnx"), ["--check", d]


def ort_args(name, threads, a, out):
    """The ORT server's command line for a float model (or the GEMM row's MatMul), or None with
    the reason when onnxruntime-node is not installed."""
    if not os.path.isdir(os.path.join(NODE_MODULES, "onnxruntime-node")):
        return None, "no %s/onnxruntime-node (bench/run.sh installs it with npm)" % NODE_MODULES
    shapes, ins, model, check = ort_inputs(name, out)
    return (["node", "bench/ort.js", "serve", shapes, ins, "--threads", str(threads),
             "--warmup", str(a.warmup + 2)] + check + ["ort=" + model]), None


def measure(name, exe, threads, a, out):
    """One (model, threads) cell: alternating rounds of the C side and every PyTorch variant."""
    d = os.path.join(out, name)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    res = {"c": [], "torch": {}, "check": "", "c_err": None, "torch_err": None,
           "torch_unavailable": {}, "ort": [], "ort_check": "", "ort_err": None}
    if name == "gemm":
        cargs = [exe, "--n", str(GEMM_N), "--serve", "--warmup", str(a.warmup)]
    else:
        cargs = [exe, "--data", d, "--serve", "--warmup", str(a.warmup)]
    targs = [PY, "bench/torch_bench.py", name, "--threads", str(threads), "--serve",
             "--warmup", str(a.warmup + 2)]
    res["c_cmd"] = "OMP_NUM_THREADS=%d %s" % (threads, shjoin(cargs))
    res["t_cmd"] = shjoin(targs)
    oargs, res["ort_err"] = ort_args(name, threads, a, out)
    res["o_cmd"] = "NODE_PATH=%s %s" % (NODE_MODULES, shjoin(oargs)) if oargs else ""
    tsrv = csrv = osrv = None
    variants = []
    try:
        tsrv = Server(targs, env, os.path.join(d, "torch_t%d.err" % threads))
        ln, before = tsrv.until("ready")
        for b in before:
            if b.startswith("unavailable "):
                v, why = b[len("unavailable "):].split(": ", 1)
                res["torch_unavailable"][v] = why
        for tok in ln.split()[1:]:
            v = tok.split("(")[0]
            variants.append(v)
            res["torch"][v] = []
            if "(" in tok:
                res.setdefault("how", {})[v] = tok[len(v) + 1:-1]
    except RuntimeError as e:
        res["torch_err"] = "torch: %s" % e
        if tsrv:
            tsrv.close()
        tsrv = None
    try:
        csrv = Server(cargs, env, os.path.join(d, "c_t%d.err" % threads))
        ln, before = csrv.until("ready")
        for b in before:
            if b.startswith("check "):
                res["check"] = b.split()[1]
    except RuntimeError as e:
        res["c_err"] = "run: %s" % e
        if csrv:
            csrv.close()
        csrv = None
    if oargs:
        try:
            nenv = dict(env, NODE_PATH=os.path.abspath(NODE_MODULES))
            osrv = Server(oargs, nenv, os.path.join(d, "ort_t%d.err" % threads))
            ln, before = osrv.until("ready")
            for b in before:
                if b.startswith("check "):
                    res["ort_check"] = b.split()[2]
                elif b.startswith("unavailable "):
                    res["ort_err"] = "ORT: " + b.split(": ", 1)[-1]
            if len(ln.split()) < 2:
                osrv.close()
                osrv = None
        except RuntimeError as e:
            res["ort_err"] = "ORT: %s" % e
            if osrv:
                osrv.close()
            osrv = None
    for r in range(a.rounds):
        sides = [("c", None)] + [("torch", v) for v in variants] + [("ort", None)]
        if r % 2:
            sides.reverse()
        for side, v in sides:
            time.sleep(0.5)  # idle OpenMP and ORT workers of the other sides stop spinning
            try:
                if side == "c" and csrv:
                    res["c"] += csrv.times("run %d" % a.runs)
                elif side == "torch" and tsrv:
                    res["torch"][v] += tsrv.times("run %s %d" % (v, a.runs))
                elif side == "ort" and osrv:
                    res["ort"] += osrv.times("run ort %d" % a.runs)
            except RuntimeError as e:
                if side == "c":
                    res["c_err"] = "run: %s" % e
                    csrv.close()
                    csrv = None
                elif side == "ort":
                    res["ort_err"] = "ORT: %s" % e
                    osrv.close()
                    osrv = None
                else:
                    res["torch_err"] = "torch: %s" % e
                    tsrv.close()
                    tsrv = None
    for s in (csrv, tsrv, osrv):
        if s:
            s.close()
    return res


def check_quant(name, exe, out):
    """The int8 C against ONNX Runtime on the check set of make_quant_models.py: one line."""
    d = os.path.join(out, name)
    try:
        with open(os.path.join(d, "quant.json")) as f:
            step = json.load(f)["output_scale"][0]
    except (OSError, ValueError, KeyError, IndexError):
        step = None
    sets = sorted((s for s in os.listdir(os.path.join(d, "check")) if s.isdigit()), key=int)
    worst, agree, n = 0.0, 0, 0
    import numpy as np
    for s in sets:
        cd = os.path.join(d, "check", s)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        r = subprocess.run([exe, "--data", cd, "--dump", os.path.join(cd, "c"), "--runs", "1",
                            "--warmup", "0"], cwd=ROOT, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            return first_error(r.stderr, "run")
        got = np.fromfile(os.path.join(cd, "c_0.bin"), np.float32)
        want = np.fromfile(os.path.join(cd, "ort_0.bin"), np.float32)
        if got.shape != want.shape:
            return "FAIL: %d outputs, ORT %d" % (got.size, want.size)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
        agree += int(np.argmax(got) == np.argmax(want))
        n += 1
    steps = ""
    if step:
        k = worst / step
        steps = " (%.0f step%s)" % (k, "" if round(k) == 1 else "s")
    return "top-1 %d/%d, max diff %.3g%s" % (agree, n, worst, steps)


def measure_quant(name, qexe, fexe, threads, a, out):
    """One (int8 model, threads) cell: onnx2c int8, onnx2c float, ORT int8, ORT float."""
    base = name[2:]
    qd, fd = os.path.join(out, name), os.path.join(out, base)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    nenv = dict(os.environ, NODE_PATH=os.path.abspath(NODE_MODULES))
    shape = ",".join(map(str, MODELS[base].shapes[0]))
    res = {"c_int8": [], "c_float": [], "ort_int8": [], "ort_float": [], "float_check": "",
           "err": {}, "cmds": []}
    servers = {}
    for key, exe, d in (("c_int8", qexe, qd), ("c_float", fexe, fd)):
        if not exe:
            continue
        srv = None
        args = [exe, "--data", d, "--serve", "--warmup", str(a.warmup)]
        res["cmds"].append("OMP_NUM_THREADS=%d %s" % (threads, shjoin(args)))
        try:
            srv = Server(args, env, os.path.join(d, "%s_t%d.err" % (key, threads)))
            _, before = srv.until("ready")
            servers[key] = srv
            for b in before:
                if b.startswith("check ") and key == "c_float":
                    res["float_check"] = b.split()[1]
        except RuntimeError as e:
            res["err"][key] = "run: %s" % e
            if srv:
                srv.close()
    oargs = ["node", "bench/ort.js", "serve", shape, os.path.join(qd, "input_0.bin"),
             "--threads", str(threads), "--warmup", str(a.warmup + 2),
             "int8=" + os.path.join(qd, "model.onnx"), "float=" + os.path.join(fd, "model.onnx")]
    res["cmds"].append("NODE_PATH=%s %s" % (NODE_MODULES, shjoin(oargs)))
    osrv = None
    try:
        osrv = Server(oargs, nenv, os.path.join(qd, "ort_t%d.err" % threads))
        ln, before = osrv.until("ready")
        for b in before:
            if b.startswith("unavailable "):
                v, why = b[len("unavailable "):].split(": ", 1)
                res["err"]["ort_" + v] = "ORT: " + why
        for v in ln.split()[1:]:
            servers["ort_" + v] = osrv
    except RuntimeError as e:
        res["err"]["ort_int8"] = res["err"]["ort_float"] = "ORT: %s" % e
        if osrv:
            osrv.close()
        osrv = None
    order = [k for k in ("c_int8", "c_float", "ort_int8", "ort_float") if k in servers]
    for r in range(a.rounds):
        sides = order[::-1] if r % 2 else order
        for key in sides:
            srv = servers.get(key)
            if not srv:
                continue
            time.sleep(0.5)
            cmd = "run %d" % a.runs if key.startswith("c_") else "run %s %d" % (key[4:], a.runs)
            try:
                res[key] += srv.times(cmd)
            except RuntimeError as e:
                res["err"][key] = "run: %s" % e
                for k in [k for k, s in servers.items() if s is srv]:
                    del servers[k]
                srv.close()
    for srv in set(servers.values()):
        srv.close()
    return res


def quant_row_cells(name, threads, res, errs, check):
    """model, threads, int8, float, float/int8, ORT int8, ORT/int8, ORT float, checks, spread."""
    med = {k: median(res[k]) if res and res[k] else None
           for k in ("c_int8", "c_float", "ort_int8", "ort_float")}

    def cell(k):
        if med[k] is not None:
            return fmt_ms(med[k])
        why = errs.get(k) or (res["err"].get(k) if res else None) or "no runs"
        return "n/a (%s)" % why

    def ratio(x, y):
        return "%.2fx" % (med[x] / med[y]) if med[x] and med[y] else ""

    sp = " / ".join("%.0f%%" % spread(res[k]) if res and spread(res[k]) is not None else "-"
                    for k in ("c_int8", "c_float", "ort_int8"))
    return [name, str(threads), cell("c_int8"), cell("c_float"), ratio("c_float", "c_int8"),
            cell("ort_int8"), ratio("ort_int8", "c_int8"), cell("ort_float"), check,
            res["float_check"] if res else "", sp]


QHEADER = ["model", "threads", "onnx2c int8 ms", "onnx2c float ms", "float / int8",
           "ORT int8 ms", "ORT int8 / onnx2c int8", "ORT float ms", "int8 check vs ORT",
           "float check vs PyTorch", "spread int8 / float / ORT int8"]
QNOTE = ("Int8 rows: onnx2c int8 is the C of the QDQ model (bench/make_quant_models.py), "
         "onnx2c float the C of the float model of the same network; ORT is onnxruntime-node "
         "(CPU, optimizations all, intra-op threads = threads) on the same int8 file and on the "
         "float file. float / int8 >= 1.5x and ORT int8 / onnx2c int8 >= 1.0x are issue 11's "
         "acceptance (1 thread). int8 check: onnx2c's int8 output against ORT's on 8 inputs "
         "(top-1 agreement, largest |difference| of the dequantized logits, in output "
         "quantization steps); ORT's integer kernels may round a step differently.")


def fmt_ms(x):
    return "%.3f" % x if x < 10 else "%.2f" % x if x < 100 else "%.1f" % x


def machine_info():
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            txt = f.read()
        m = re.search(r"^model name\s*:\s*(.*)$", txt, re.M)
        info["cpu"] = m.group(1).strip() if m else platform.processor()
        flags = re.search(r"^flags\s*:\s*(.*)$", txt, re.M)
        fl = flags.group(1).split() if flags else []
        info["isa"] = " ".join(x for x in ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni",
                                           "avx512_bf16") if x in fl)
    except OSError:
        info["cpu"] = platform.processor()
        info["isa"] = ""
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        fam = re.search(r"CPU family:\s*(\S+)", lscpu)
        mod = re.search(r"Model:\s*(\S+)", lscpu)
        hyp = re.search(r"Hypervisor vendor:\s*(\S+)", lscpu)
        l2 = re.search(r"L2 cache:\s*(.+)", lscpu)
        l3 = re.search(r"L3 cache:\s*(.+)", lscpu)
        extra = []
        if fam and mod:
            extra.append("family %s model %s" % (fam.group(1), mod.group(1)))
        if hyp:
            extra.append("virtualised (%s)" % hyp.group(1))
        if l2:
            extra.append("L2 %s" % l2.group(1).strip())
        if l3:
            extra.append("L3 %s" % l3.group(1).strip())
        info["cpu_extra"] = ", ".join(extra)
    except OSError:
        info["cpu_extra"] = ""
    info["cores"] = os.cpu_count()
    info["kernel"] = platform.release()
    info["gcc"] = subprocess.run(["gcc", "--version"], capture_output=True,
                                 text=True).stdout.splitlines()[0]
    tv = subprocess.run([PY, "-c", "import sys, torch, torchvision; "
                         "print(torch.__version__, torchvision.__version__, sys.version.split()[0]);"
                         "print(torch.__config__.show())"], capture_output=True, text=True)
    lines = tv.stdout.splitlines()
    if lines:
        t, tvv, pyv = lines[0].split()
        info["torch"] = "torch %s, torchvision %s (Debian python3-torch), Python %s" % (t, tvv, pyv)
        dnn = [ln.strip(" -") for ln in lines if "DNN" in ln]
        info["onednn"] = dnn[0] if dnn else "?"
        cap = [ln.strip(" -") for ln in lines if "CPU capability" in ln]
        info["torch_cap"] = cap[0] if cap else ""
    else:
        info["torch"] = "unavailable: " + tv.stderr.strip().splitlines()[-1:][0] \
            if tv.stderr.strip() else "unavailable"
        info["onednn"] = info["torch_cap"] = ""
    try:
        with open(os.path.join(NODE_MODULES, "onnxruntime-node", "package.json")) as f:
            ov = json.load(f).get("version", "?")
        nv = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
        info["ort"] = "onnxruntime-node %s (npm, CPU execution provider), node %s" % (ov, nv)
    except (OSError, ValueError):
        info["ort"] = "not installed (no %s/onnxruntime-node)" % NODE_MODULES
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    pkg = subprocess.run(["dpkg", "-S", blas], capture_output=True, text=True).stdout.split(":")[0]
    info["blas"] = "%s (%s)" % (blas, pkg or "?")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                            "compiler", "templates", "runtime", "CMakeLists.txt"],
                           capture_output=True, text=True, cwd=ROOT).stdout.split("\n")
    ndirty = len([x for x in dirty if x.strip()])
    info["git"] = head + (" + %d uncommitted compiler/template file(s)" % ndirty if ndirty else "")
    info["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        info["load"] = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        info["load"] = "?"
    return info


def row_cells(name, threads, res, err):
    """Table cells: model, threads, onnx2c, PyTorch, variant, ratio, ORT, ratio, check, ORT
    check, spread."""
    cells = _row_cells(name, threads, res, err)
    sp = ""
    if res and res["c"]:
        t_meds = {v: median(t) for v, t in res["torch"].items() if t}
        ref = "mkldnn" if name == "gemm" else (min(t_meds, key=t_meds.get) if t_meds else None)
        a, b = spread(res["c"]), spread(res["torch"][ref]) if ref in t_meds else None
        c = spread(res["ort"]) if res.get("ort") else None
        sp = " / ".join("%.0f%%" % x if x is not None else "-" for x in (a, b, c))
    return cells + [sp]


def ort_cells(name, res):
    """ORT ms (GFLOP/s for the GEMM row) and onnx2c / ORT (for GEMM: onnx2c as % of ORT)."""
    if not res.get("ort"):
        return ["n/a (%s)" % (res.get("ort_err") or "no runs"), ""]
    o_med = median(res["ort"])
    c_med = median(res["c"]) if res["c"] else None
    if name == "gemm":
        flops = 2.0 * GEMM_N ** 3
        return ["%.1f" % (flops / (o_med * 1e6)),
                ("%.0f%% of ORT" % (100 * o_med / c_med)) if c_med else ""]
    return [fmt_ms(o_med), ("%.2fx" % (c_med / o_med)) if c_med else ""]


def _row_cells(name, threads, res, err):
    if name == "gemm":
        label = "GEMM %d^3 (GFLOP/s)" % GEMM_N
    else:
        label = name
    if err:
        return [label, str(threads), "n/a (%s)" % err, "", "", "", "", "", "", ""]
    flops = 2.0 * GEMM_N ** 3
    c_med = median(res["c"]) if res["c"] else None
    t_meds = {v: median(t) for v, t in res["torch"].items() if t}
    if name == "gemm":
        c_cell = ("%.1f" % (flops / (c_med * 1e6))) if c_med else "n/a (%s)" % res["c_err"]
        dnn = t_meds.get("mkldnn")
        t_cell = ("%.1f" % (flops / (dnn * 1e6))) if dnn else "n/a (%s)" % (
            res["torch_unavailable"].get("mkldnn") or res["torch_err"])
        var = "oneDNN (mkldnn Linear)"
        if "mm" in t_meds:
            var += "; torch.mm %.1f" % (flops / (t_meds["mm"] * 1e6))
        ratio = ("%.0f%% of oneDNN" % (100 * dnn / c_med)) if (c_med and dnn) else ""
        return ([label, str(threads), c_cell, t_cell, var, ratio] + ort_cells(name, res) +
                [res["check"], res["ort_check"]])
    c_cell = fmt_ms(c_med) if c_med else "n/a (%s)" % res["c_err"]
    if t_meds:
        best = min(t_meds, key=t_meds.get)
        t_cell = fmt_ms(t_meds[best])
        others = ["%s %s" % (v + ("(%s)" % res["how"][v] if v in res.get("how", {}) else ""),
                             fmt_ms(m)) for v, m in t_meds.items()]
        var = "**%s**" % best + ("" if len(t_meds) < 2 else " (" + ", ".join(others) + ")")
        for v, why in res["torch_unavailable"].items():
            var += "; %s n/a: %s" % (v, why[:80].replace("|", "/"))
        ratio = ("%.2fx" % (c_med / t_meds[best])) if c_med else ""
    else:
        t_cell, var, ratio = "n/a (%s)" % res["torch_err"], "", ""
    return ([label, str(threads), c_cell, t_cell, var, ratio] + ort_cells(name, res) +
            [res["check"], res["ort_check"]])


HEADER = ["model", "threads", "onnx2c ms", "PyTorch ms", "PyTorch variant (all medians, ms)",
          "onnx2c / PyTorch", "ORT ms", "onnx2c / ORT", "output check", "ORT check",
          "spread C / PyTorch / ORT"]
GEMM_NOTE = ("onnx2c / PyTorch and onnx2c / ORT: onnx2c's median time over the other side's; "
             "below 1 onnx2c is faster. ORT: ONNX Runtime 1.30 (onnxruntime-node, CPU, "
             "optimizations all, intra-op threads = threads, inter-op 1, sequential) on the same "
             "model.onnx; ORT check: its outputs against PyTorch's under the C side's tolerance. "
             "Spread: interquartile range / median of each side's runs (PyTorch: the variant "
             "shown); tens of percent mean the machine was loaded and the row is weak. "
             "GEMM row: GFLOP/s = 2*1024^3 / median time (higher is better); onnx2c column is "
             "templates/gemm.c, PyTorch column oneDNN, ORT column one MatMul node (1024x1024 "
             "input times a constant 1024x1024), ratio columns onnx2c as % of the other.")


SHEADER = ["model", "threads", "onnx2c speed-up", "ORT speed-up"]
SNOTE = ("Speed-up: the median time on 1 thread over the median time on the more threads, the "
         "same runs as the table above (the issue's 2-thread criterion: at least 1.7x for each "
         "CNN).")


def scaling_rows(raw):
    """Per model measured on 1 thread and on more: each side's speed-up from the medians."""
    by = {}
    for cell in raw:
        if cell.get("result") and cell["model"] != "gemm" and not cell.get("error"):
            by.setdefault(cell["model"], {})[cell["threads"]] = cell["result"]
    rows = []
    for m, ts in by.items():
        one = ts.get(1)
        for t in sorted(k for k in ts if k > 1 and one):
            cells = [m, "1 -> %d" % t]
            for side in ("c", "ort"):
                a, b = one.get(side), ts[t].get(side)
                cells.append("%.2fx" % (median(a) / median(b)) if a and b else "n/a")
            rows.append(cells)
    return rows


def md_table(rows, header=HEADER):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    return "\n".join(out)


def text_table(rows, header=HEADER):
    rows2 = [header] + [[c.replace("**", "") for c in r] for r in rows]
    w = [min(max(len(r[i]) for r in rows2), 60) for i in range(len(header))]
    lines = []
    for k, r in enumerate(rows2):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


def write_md(path, info, rows, a, argv, log, qrows=(), srows=()):
    n = a.rounds * a.runs
    desc = "\n".join("- **%s**: %s at %s." % (
        m, MODELS[m].desc, ", ".join("x".join(map(str, s)) for s in MODELS[m].shapes))
        for m in a.models if m in MODELS)
    desc += "".join("\n- **%s**: %s quantized to int8 QDQ by bench/make_quant_models.py "
                    "(onnxruntime's static quantizer's layout: asymmetric activations, int8 "
                    "per-channel symmetric weights, int32 biases, MinMax calibration on 8 random "
                    "inputs)." % (m, m[2:]) for m in a.models if m in QUANT)
    md = """# Benchmarks: onnx2c vs PyTorch CPU and ONNX Runtime

Generated by `bench/run.sh` (see `bench/README.md`); do not edit by hand. Baseline numbers:
the speed work (issue #4) is measured against this table. Acceptance: every model at most 1.5x
PyTorch's time with 1 thread; GEMM at least 60% of oneDNN.

## Machine

- CPU: {cpu} ({cpu_extra}); {cores} cores seen; ISA: {isa}
- A virtual machine that may be shared with other work (load average at the end of the run,
  the bench's own 2-thread rows included: {load}), so single numbers can move by 10-30%; the
  sides alternate in rounds so that any load hits both.
- Linux {kernel}; C compiler: {gcc}, flags `{cflags}`
- PyTorch: {torch}; {onednn}; {torch_cap}
- ONNX Runtime: {ort}
- BLAS behind torch's dense Linear/mm: {blas}
- onnx2c: git {git}
- Date: {date}

## Command

```
{cmd}
```

{n} timed runs per side and cell ({rounds} rounds x {runs} runs, sides alternating in order from
round to round), after warm-up runs ({warmup} for the C, {twarm} per PyTorch variant and for
ONNX Runtime); the table gives medians over all runs (the raw times are in {out}/results.json).
Threads: `OMP_NUM_THREADS=T` for the C, `torch.set_num_threads(T)` for PyTorch,
`intraOpNumThreads: T` (inter-op 1, sequential) for ONNX Runtime, which runs the same
`model.onnx` as onnx2c. The C side's and ONNX Runtime's first outputs are checked against
PyTorch's (CONTRACT.md tolerance).

## Results

{table}

{gemm_note} PyTorch ms is the faster of eager (`torch.inference_mode()`) and
`torch.jit.optimize_for_inference` (of `torch.jit.script`, else `torch.jit.trace`).
{scaling}{quant}
## Models

{desc}
- **GEMM**: C = A*B, 1024x1024 float, row-major, through templates/gemm.c (`bench/gemm.c`),
  against `torch.nn.Linear(1024, 1024, bias=False)` converted by `torch.utils.mkldnn.to_mkldnn`
  and run on `x.to_mkldnn()` (oneDNN), and plain `torch.mm`; ONNX Runtime runs one MatMul
  node (1024x1024 input times a constant 1024x1024 initializer).

## Commands per step

(for each thread count T of `--threads`; the servers answer `run K` on stdin, see bench/README.md)

```
{steps}
```
""".format(cmd=" ".join(["bash", "bench/run.sh"] + [shlex.quote(x) for x in argv]),
           cflags=" ".join(CFLAGS), out=a.out, n=n, rounds=a.rounds, runs=a.runs, warmup=a.warmup,
           twarm=a.warmup + 2, table=md_table(rows) if rows else "(no float models in this run)",
           quant=("\n### Int8 (QDQ)\n\n%s\n\n%s\n" % (md_table(qrows, QHEADER), QNOTE)
                  if qrows else ""),
           gemm_note=GEMM_NOTE, desc=desc,
           scaling=("\n### Threads\n\n%s\n\n%s\n" % (md_table(srows, SHEADER), SNOTE)
                    if srows else ""),
           steps="\n".join(log["commands"] + log["servers"]), **info)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(md)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 rounds x 3 runs, 1 warm-up")
    ap.add_argument("--threads", default="1 2", help='thread counts, e.g. "1 2"')
    ap.add_argument("--models", default=" ".join(ALL), help="models (space or comma separated)")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--runs", type=int, help="runs per side per round")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--build-dir", default="build",
                    help="where onnx2c and node_modules/onnxruntime-node are (default build)")
    ap.add_argument("--out", default=None, help="model and result directory (BUILD/bench)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--docs", action="store_true", help="write docs/benchmarks.md")
    g.add_argument("--no-docs", action="store_true", help="never write docs/benchmarks.md")
    ap.add_argument("--argv", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    os.chdir(ROOT)
    global ONNX2C, NODE_MODULES
    ONNX2C = os.path.join(a.build_dir, "onnx2c")
    NODE_MODULES = os.path.join(a.build_dir, "node_modules")
    a.out = a.out or os.path.join(a.build_dir, "bench")
    a.models = [m for m in re.split(r"[,\s]+", a.models) if m]
    for m in a.models:
        if m not in KNOWN:
            sys.exit("bench: unknown model %r (known: %s)" % (m, " ".join(KNOWN)))
    a.threads = [int(t) for t in re.split(r"[,\s]+", a.threads) if t]
    a.rounds = a.rounds or (2 if a.quick else 4)
    a.runs = a.runs or (3 if a.quick else 5)
    a.warmup = a.warmup if a.warmup is not None else (1 if a.quick else 3)
    argv = shlex.split(a.argv) if a.argv is not None else sys.argv[1:]
    full = not a.quick and set(a.models) == set(ALL) and a.rounds * a.runs >= 20
    log = {"commands": [], "servers": []}

    rows, raw, qrows = [], [], []
    print("bench: models %s, threads %s, %d rounds x %d runs per side" % (
        " ".join(a.models), " ".join(map(str, a.threads)), a.rounds, a.runs), flush=True)
    for name in a.models:
        if name in QUANT:
            qexe, qerr = build_model(name, a.out, log)
            fexe, ferr = build_model(name[2:], a.out, log)
            check = check_quant(name, qexe, a.out) if qexe else ""
            errs = {"c_int8": qerr, "c_float": ferr}
            for t in a.threads:
                print("bench: %s, %d thread(s) ..." % (name, t), flush=True)
                t0 = time.time()
                res = measure_quant(name, qexe, fexe, t, a, a.out)
                if t == a.threads[0]:
                    log["servers"] += res["cmds"]
                print("  %.0f s" % (time.time() - t0), flush=True)
                row = quant_row_cells(name, t, res, errs, check)
                qrows.append(row)
                raw.append({"model": name, "threads": t, "error": errs, "check": check,
                            "result": res})
                print("  " + " | ".join(row), flush=True)
            continue
        if name == "gemm":
            exe, err = build_gemm(a.out, log)
        else:
            exe, err = build_model(name, a.out, log)
        for t in a.threads:
            if err:
                res = None
            else:
                print("bench: %s, %d thread(s) ..." % (name, t), flush=True)
                t0 = time.time()
                res = measure(name, exe, t, a, a.out)
                if t == a.threads[0]:
                    log["servers"] += [res["c_cmd"], res["t_cmd"]] + (
                        [res["o_cmd"]] if res["o_cmd"] else [])
                print("  %.0f s" % (time.time() - t0), flush=True)
            row = row_cells(name, t, res, err)
            rows.append(row)
            raw.append({"model": name, "threads": t, "error": err, "result": res})
            print("  " + " | ".join(c.replace("**", "") for c in row if c), flush=True)

    info = machine_info()
    if rows:
        print()
        print(text_table(rows))
        print()
        print(GEMM_NOTE)
    srows = scaling_rows(raw)
    if srows:
        print()
        print(text_table(srows, SHEADER))
    if qrows:
        print()
        print(text_table(qrows, QHEADER))
        print()
        print(QNOTE)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"machine": info, "rounds": a.rounds, "runs": a.runs, "cells": raw}, f,
                  indent=1)
    path = os.path.join(a.out, "benchmarks.md")
    write_md(path, info, rows, a, argv, log, qrows, srows)
    print("bench: wrote %s" % path)
    if (full or a.docs) and not a.no_docs:
        write_md(os.path.join("docs", "benchmarks.md"), info, rows, a, argv, log, qrows, srows)
        print("bench: wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
