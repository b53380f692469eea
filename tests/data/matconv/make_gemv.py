#!/usr/bin/python3
"""Gemm and MatMul cases of the fully connected kernel of --memory-first (templates/gemv.c),
with numpy references computed in double, in tests/data/matconv/gemv/<name>/: model.onnx and
test_data_set_K at the sizes listed (symbolic rows: one generated C file runs every size).

Run with Debian's python3-onnx (outputs are committed; the tests never need Python):

    /usr/bin/python3 tests/data/matconv/make_gemv.py

The weights are constants (the kernel's case); the cases cover transB 0 and 1, transA, alpha
and beta, every bias C Gemm allows (none, scalar, [1], [N], [1, N], [M, 1], [M, N], constant or
a runtime input), K = 1, odd K, N below, at and past the block of 8 outputs, several and
symbolic rows, the ops the lower pass fuses (BatchNormalization folded into the weight, a
residual Add, Relu, Clip, LeakyRelu, HardSwish), MatMul with batch dims in A, a vector A, a
vector B, a bias Add, and a double Gemm (which keeps the GEMM engine).  ctest runs them in
the default mode (op_cases_*) and under --memory-first (memory_first_*).
"""
import os
import sys
import zlib

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gen_util  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemv")
FL = TensorProto.FLOAT


def act_ref(kind, v):
    if kind == "relu":
        return np.maximum(v, 0)
    if kind == "clip":
        return np.clip(v, -0.5, 0.75)
    if kind == "leaky":
        return np.where(v < 0, 0.1 * v, v)
    if kind == "hardswish":
        return v * np.clip(v / 6 + 0.5, 0, 1)
    return v


def act_nodes(kind, src, dst):
    if kind == "relu":
        return [helper.make_node("Relu", [src], [dst], name="act")], []
    if kind == "clip":
        return ([helper.make_node("Clip", [src, "lo", "hi"], [dst], name="act")],
                [numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
                 numpy_helper.from_array(np.array(0.75, np.float32), "hi")])
    if kind == "leaky":
        return [helper.make_node("LeakyRelu", [src], [dst], name="act", alpha=0.1)], []
    if kind == "hardswish":
        return [helper.make_node("HardSwish", [src], [dst], name="act")], []
    return [helper.make_node("Identity", [src], [dst], name="act")], []


def tail(nodes, inputs, inits, out, act, res):
    """Appends the residual Add of the input res (a value info, or False) and the activation
    writing y."""
    if res:
        inputs.append(res)
        nodes.append(helper.make_node("Add", [out, "r"], ["s"], name="res"))
        out = "s"
    an, ai = act_nodes(act, out, "y")
    nodes += an
    inits += ai


def save(name, nodes, inputs, inits, sets, opset=14, yt=FL):
    m = gen_util.make_model(name, nodes, inputs, [helper.make_tensor_value_info("y", yt, None)],
                            inits, opset, "onnx2c-make_gemv")
    gen_util.write_case(os.path.join(HERE, name), m, [(feeds, [y]) for feeds, y in sets])


def gemm(name, K, N, rows=(1, 3), trans_a=0, trans_b=1, alpha=1.0, beta=1.0, c=None,
         c_runtime=False, act=None, res=False, bn=False, dtype=np.float32):
    """c: None or the shape of C, "M" standing for the rows; act after the Gemm (and the
    residual Add, and BatchNormalization when bn)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    et = TensorProto.DOUBLE if dtype == np.float64 else FL
    w = rng.uniform(-1, 1, (N, K) if trans_b else (K, N)).astype(dtype)
    ashape = ["K_", "M"] if trans_a else ["M", "K_"]
    ashape = [K if d == "K_" else d for d in ashape]
    inputs = [helper.make_tensor_value_info("a", et, ashape)]
    inits = [numpy_helper.from_array(w, "w")]
    gin = ["a", "w"]
    cval = None
    if c is not None:
        gin.append("c")
        if c_runtime:
            inputs.append(helper.make_tensor_value_info("c", et, list(c)))
        else:
            cval = rng.uniform(-1, 1, tuple(c)).astype(dtype)
            inits.append(numpy_helper.from_array(cval, "c"))
    attrs = dict(transA=trans_a, transB=trans_b, alpha=alpha, beta=beta)
    out = "g"
    nodes = [helper.make_node("Gemm", gin, [out], name="gemm", **attrs)]
    if bn:
        s, b, mu, var = (rng.uniform(lo, hi, N).astype(dtype)
                         for lo, hi in ((0.5, 1.5), (-1, 1), (-0.5, 0.5), (0.5, 2)))
        for nm, v in (("bs", s), ("bb", b), ("bm", mu), ("bv", var)):
            inits.append(numpy_helper.from_array(v, nm))
        nodes.append(helper.make_node("BatchNormalization", [out, "bs", "bb", "bm", "bv"], ["n"],
                                      name="bn", epsilon=1e-5))
        out = "n"
    tail(nodes, inputs, inits, out, act, res and helper.make_tensor_value_info("r", et, ["M", N]))
    sets = []
    for M in rows:
        a = rng.uniform(-2, 2, (K, M) if trans_a else (M, K)).astype(dtype)
        feeds = [a]
        ref = alpha * ((a.T if trans_a else a).astype(np.float64) @
                       (w.T if trans_b else w).astype(np.float64))
        if c is not None:
            shape = tuple(M if d == "M" else d for d in c)
            cv = rng.uniform(-1, 1, shape).astype(dtype) if c_runtime else cval
            if c_runtime:
                feeds.append(cv)
            ref = ref + beta * cv.astype(np.float64)
        if bn:
            ref = (ref - mu) / np.sqrt(var.astype(np.float64) + 1e-5) * s + b
        if res:
            r = rng.uniform(-1, 1, (M, N)).astype(dtype)
            feeds.append(r)
            ref = ref + r
        sets.append((feeds, act_ref(act, ref).astype(dtype)))
    save(name, nodes, inputs, inits, sets, yt=et)


def matmul(name, ashape, K, N, sizes, vec_b=False, bias=False, act=None, res=False):
    """ashape: A's dims before K (names are symbolic, given per data set in sizes)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    w = rng.uniform(-1, 1, (K,) if vec_b else (K, N)).astype(np.float32)
    inputs = [helper.make_tensor_value_info("a", FL, list(ashape) + [K])]
    inits = [numpy_helper.from_array(w, "w")]
    nodes = [helper.make_node("MatMul", ["a", "w"], ["p"], name="mm")]
    out = "p"
    if bias:
        bv = rng.uniform(-1, 1, (N,)).astype(np.float32)
        inits.append(numpy_helper.from_array(bv, "b"))
        nodes.append(helper.make_node("Add", [out, "b"], ["q"], name="bias"))
        out = "q"
    oshape = list(ashape) + ([] if vec_b else [N])
    tail(nodes, inputs, inits, out, act, res and helper.make_tensor_value_info("r", FL, oshape))
    sets = []
    for size in sizes:
        dims = [size[d] if isinstance(d, str) else d for d in ashape]
        a = rng.uniform(-2, 2, tuple(dims) + (K,)).astype(np.float32)
        ref = a.astype(np.float64) @ w.astype(np.float64)
        feeds = [a]
        if bias:
            ref = ref + bv
        if res:
            r = rng.uniform(-1, 1, ref.shape).astype(np.float32)
            feeds.append(r)
            ref = ref + r
        sets.append((feeds, act_ref(act, ref).astype(np.float32)))
    save(name, nodes, inputs, inits, sets)


def main():
    os.makedirs(HERE, exist_ok=True)
    # a fully connected layer at batch 1 and 3 (transB 1, bias [N], ReLU): N 13 = 8 + 5, K odd
    gemm("fc_relu", 37, 13, c=(13,), act="relu")
    gemm("fc_tb0_k1", 1, 9, trans_b=0, c=(1, 9), act="clip")
    gemm("fc_n1_k2", 2, 1, c=(1,), rows=(1, 2, 5))
    gemm("fc_n8_k8", 8, 8, c=(8,), act="relu", rows=(1, 4))
    gemm("fc_n2_k256", 256, 2, c=(2,))
    gemm("fc_wide", 300, 70, trans_b=0, c=(70,), act="leaky", rows=(1, 2))
    # alpha and beta, C of each broadcast shape
    gemm("fc_alpha_beta_mn", 11, 12, alpha=0.5, beta=-1.5, c=("M", 12), c_runtime=True)
    gemm("fc_beta_scalar", 9, 10, beta=2.0, c=(), act="hardswish")
    gemm("fc_beta_col", 12, 17, trans_b=0, alpha=-1.25, beta=0.75, c=("M", 1), c_runtime=True)
    gemm("fc_c_1x1", 5, 16, c=(1, 1))
    gemm("fc_beta0", 7, 9, beta=0.0, c=(9,))
    gemm("fc_no_c", 6, 24, trans_b=0, act="relu")
    # transA: rows of A' are columns of A
    gemm("fc_trans_a", 19, 11, trans_a=1, trans_b=0, c=(11,), rows=(1, 4))
    # the tiny_ad layer: Gemm + BatchNormalization (folded) + ReLU, and a fused residual
    gemm("fc_bn_relu", 24, 16, c=(16,), bn=True, act="relu", rows=(1, 2))
    gemm("fc_res_clip", 20, 21, c=(21,), res=True, act="clip")
    # double keeps the GEMM engine
    gemm("fc_double", 10, 9, c=(9,), act="relu", dtype=np.float64)
    # MatMul: batch dims of A fold into the rows; a vector A; a vector B; bias Add + residual
    matmul("mm_3d_bias_relu", ["B", "S"], 33, 10, [{"B": 1, "S": 1}, {"B": 2, "S": 3}],
           bias=True, act="relu")
    matmul("mm_vec_a", [], 20, 5, [{}])
    matmul("mm_vec_b", ["S"], 14, 1, [{"S": 1}, {"S": 6}], vec_b=True)
    matmul("mm_res", ["S"], 16, 24, [{"S": 2}, {"S": 1}], bias=True, res=True)


if __name__ == "__main__":
    main()
