"""PyTorch CPU side of the benchmark: the same models as bench/models.py (same seed, same weights).

    /usr/bin/python3 bench/torch_bench.py MODEL [--threads T] [--runs N] [--warmup W] [--serve]

MODEL is a model of bench/models.py or "gemm" (1024x1024 @ 1024x1024 float). Variants:
  models: "eager" (module.eval() under torch.inference_mode(); for the Transformer this is
          torch's fused fast path) and "jit" (torch.jit.optimize_for_inference of torch.jit.script,
          or of torch.jit.trace when scripting fails);
  gemm:   "mkldnn" (torch.nn.Linear(1024, 1024, bias=False) through torch.utils.mkldnn.to_mkldnn,
          run on x.to_mkldnn(): oneDNN's sgemm) and "mm" (torch.mm on dense tensors: the BLAS
          torch was built with).
torch.set_num_threads(T) (and set_num_interop_threads(1)) before anything runs.

Default: times every variant N runs after W warm-up runs, prints times and medians in ms.
--serve: warms every variant up, prints "ready VARIANT..." (and "unavailable VARIANT: why" for
a variant that failed to build), then reads commands on stdin: "run VARIANT K" prints
"times t1 ... tK" (ms); "quit" or EOF ends. bench/run.py alternates these with the C side.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

GEMM_N = 1024


def build_variants(name, warmup):
    """{variant: zero-argument callable}, {variant: error line}."""
    variants, errors = {}, {}
    if name == "gemm":
        torch.manual_seed(0)
        x = torch.randn(GEMM_N, GEMM_N)
        lin = torch.nn.Linear(GEMM_N, GEMM_N, bias=False).eval()
        w = torch.randn(GEMM_N, GEMM_N)
        try:
            from torch.utils import mkldnn as mkldnn_utils
            mlin = mkldnn_utils.to_mkldnn(lin)
            mx = x.to_mkldnn()
            with torch.no_grad():
                ref = lin(x)
                got = mlin(mx).to_dense()
            if not torch.allclose(ref, got, rtol=1e-3, atol=1e-3):
                raise RuntimeError("mkldnn Linear differs from dense Linear")

            def run_mkldnn():
                with torch.no_grad():
                    return mlin(mx)
            variants["mkldnn"] = run_mkldnn
        except Exception as e:  # noqa: BLE001
            errors["mkldnn"] = str(e).splitlines()[0] if str(e) else type(e).__name__

        def run_mm():
            return torch.mm(x, w)
        variants["mm"] = run_mm
        return variants, errors

    from models import MODELS
    spec = MODELS[name]
    model, _ = spec.build()
    inputs = spec.inputs()

    def run_eager():
        with torch.inference_mode():
            return model(*inputs)
    variants["eager"] = run_eager

    jit_err = None
    for how in ("script", "trace"):
        try:
            with torch.no_grad():
                if how == "script":
                    sm = torch.jit.script(model)
                else:
                    sm = torch.jit.trace(model, tuple(inputs), check_trace=False)
                sm.eval()
                opt = torch.jit.optimize_for_inference(sm)
                ref = model(*inputs)
                got = opt(*inputs)
            refs = ref if isinstance(ref, (tuple, list)) else (ref,)
            gots = got if isinstance(got, (tuple, list)) else (got,)
            if len(refs) != len(gots) or not all(
                    torch.allclose(r, g, rtol=1e-3, atol=1e-4 * float(r.abs().max()) + 1e-5)
                    for r, g in zip(refs, gots)):
                raise RuntimeError("optimize_for_inference(%s) output differs from eager" % how)

            def run_jit(opt=opt):
                with torch.no_grad():
                    return opt(*inputs)
            variants["jit"] = run_jit
            variants["jit"].how = how
            jit_err = None
            break
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()
            jit_err = "%s: %s" % (how, msg[0] if msg else type(e).__name__)
    if jit_err:
        errors["jit"] = jit_err
    return variants, errors


def time_runs(fn, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--serve", action="store_true")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    variants, errors = build_variants(a.model, a.warmup)
    for v, fn in variants.items():
        for _ in range(a.warmup):
            fn()
    if a.serve:
        for v, e in errors.items():
            print("unavailable %s: %s" % (v, e))
        print("ready " + " ".join(
            "%s(%s)" % (v, fn.how) if hasattr(fn, "how") else v for v, fn in variants.items()))
        sys.stdout.flush()
        for line in sys.stdin:
            parts = line.split()
            if len(parts) != 3 or parts[0] != "run" or parts[1] not in variants:
                break
            t = time_runs(variants[parts[1]], int(parts[2]))
            print("times " + " ".join("%.4f" % x for x in t))
            sys.stdout.flush()
        return
    for v, e in errors.items():
        print("%s: unavailable (%s)" % (v, e))
    for v, fn in variants.items():
        t = time_runs(fn, a.runs)
        print("%s times %s" % (v, " ".join("%.4f" % x for x in t)))
        print("%s median %.4f ms over %d runs (threads %d)" % (v, median(t), a.runs, a.threads))


if __name__ == "__main__":
    main()
