#!/usr/bin/env python3
"""fuzz.py — random QLinearConv / QLinearMatMul / MatMulInteger cases for the int8 engine
(templates/quant_i8*.c), each with its numpy reference (make_quant.py's definitions) and in two
forms: run-time operands (the reference loops, or qi8_rows_rt) and constant ones (NAME_c, the
engine). Not part of the suite (the cases change with the seed): a search for shapes the fixed
cases miss. It found the 3-D depthwise bug that qconv_e_dw3d now pins.

    /usr/bin/python3 tests/data/quant/fuzz.py SEED OUT_DIR [N]
    build/onnx2c-test -q --root OUT_DIR/cases $(ls OUT_DIR/cases)                  # tcc
    build/onnx2c-test -q --cc 'gcc -O2 -march=native' --root OUT_DIR/cases ...      # AVX-512
(tools/embedded.sh runs tests/data/quant/cases/*_c on the M4 and M55: copy the cases there.)
"""
import importlib.util
import os
import sys

import numpy as np

spec = importlib.util.spec_from_file_location(
    "mq", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_quant.py"))
mq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mq)


def conv(rng, name):
    sp = int(rng.choice([1, 2, 2, 2, 3]))
    dw = rng.random() < 0.3
    group = int(rng.choice([1, 1, 2, 3]))
    cg = 1 if dw else int(rng.integers(1, 12))
    C = int(rng.integers(1, 9)) if dw else cg * group
    group = C if dw else group
    mg = 1 if dw else int(rng.integers(1, 40))
    ks = [int(rng.integers(1, 4)) for _ in range(sp)]
    if dw and sp == 2 and rng.random() < 0.5:
        ks = [3, 3]
    strides = [int(rng.integers(1, 3)) for _ in range(sp)]
    dil = [int(rng.integers(1, 3)) if rng.random() < 0.3 else 1 for _ in range(sp)]
    pads = [int(rng.integers(0, 3)) for _ in range(2 * sp)]
    ins = []
    for d in range(sp):
        span = dil[d] * (ks[d] - 1) + 1
        lo = max(1, span - pads[d] - pads[sp + d])
        ins.append(int(rng.integers(lo, span + (20 if sp < 3 else 4))))
    xt, wt, yt = (rng.choice([np.int8, np.uint8]) for _ in range(3))
    zw = str(rng.choice(["none", "none", "scalar", "channel"]))
    zw = "scalar" if wt == np.uint8 and zw == "none" else zw
    mq.qconv_case(name, tuple([int(rng.integers(1, 3)), C] + ins), xt,
                  tuple([mg * group, C // group] + ks), wt, group=group, strides=strides,
                  dil=dil, pads=pads, zw_mode=zw, per_channel=bool(rng.random() < 0.7),
                  bias=bool(rng.random() < 0.8), yt=yt, big_mult=bool(rng.random() < 0.1))


def matmul(rng, name):
    batch = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    M, K, N = int(rng.integers(1, 20)), int(rng.integers(1, 70)), int(rng.integers(1, 40))
    at, bt, yt = (rng.choice([np.int8, np.uint8]) for _ in range(3))
    a, b = mq.q8(tuple(batch + [M, K]), at), mq.q8((K, N), bt)
    za = mq.q8((), at)
    zb = mq.q8((N,), bt) if rng.random() < 0.5 else mq.q8((), bt)
    acc = np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb)
    if rng.random() < 0.5:
        acc = ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)
        mq.case(name, "MatMulInteger", [("A", a), ("B", b), ("za", za), ("zb", zb)],
                [("Y", acc)], 10, const=True)
        return
    sa = np.array(0.02, np.float32)
    sb = mq.scales((N,)) if zb.ndim else mq.scales(())
    sy, zy = np.array(float(rng.choice([0.3, 0.05, 2.0])), np.float32), mq.q8((), yt)
    mult = (sa * sb / sy).astype(np.float32)
    mq.case(name, "QLinearMatMul", [("a", a), ("sa", sa), ("za", za), ("b", b), ("sb", sb),
                                    ("zb", zb), ("sy", sy), ("zy", zy)],
            [("y", mq.requant(acc, mult, zy, yt))], 10, const=True)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: fuzz.py SEED OUT_DIR [N]\n")
        return 2
    seed, mq.HERE = int(sys.argv[1]), sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rng = np.random.default_rng(seed)
    mq.rng = np.random.default_rng(seed + 1)
    for i in range(n):
        (conv if rng.random() < 0.7 else matmul)(rng, "f%03d" % i)
    return 0


if __name__ == "__main__":
    sys.exit(main())
