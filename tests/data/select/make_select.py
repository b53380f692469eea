#!/usr/bin/python3
"""Writes the cases of the select family (compiler/ops/select.c): ops whose output size is
decided by tensor data, a data dim of CONTRACT.md section 2b.

Run with Debian's python3-onnx (onnx 1.12) and python3-numpy; the outputs are committed:

    /usr/bin/python3 tests/data/select/make_select.py

cases/CASE/: one model with symbolic input dims and several data sets at different sizes and
with different counts (none selected, all selected), so one generated C file must serve them
all; references from numpy (nonzero, unique) or written here (Compress, NonMaxSuppression).
Ops after the selecting one loop over the data dim.
- nonzero_sym.onnx: NonZero of [N] for tests/unit/test_ops_select.c (bounds, --max, -5);
  nonzero_static.onnx: of [4] (no input dims, one data dim: dims may not be NULL).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import F, const, vi  # noqa: E402

CASES = os.path.join(HERE, "cases")
I64 = TensorProto.INT64
B = TensorProto.BOOL
PROD = "onnx2c-make_select"


def case(name, nodes, inputs, outputs, sets, inits=(), opset=13):
    m = gen_util.make_model(name, nodes, inputs, outputs, inits, opset, PROD)
    gen_util.write_case(os.path.join(CASES, name), m, sets)


rng = np.random.default_rng(2026)

# masked selection, x[x > 0] * 2 as torch exports it: Greater -> NonZero -> Squeeze -> Gather
sets = []
for x in (np.array([0.5, -1, 2, 0, -3, 4, -0.25], np.float32), -np.ones(5, np.float32),
          np.array([1, 2, 3, 4], np.float32), rng.standard_normal(300).astype(np.float32)):
    idx = np.nonzero(x > 0)[0].astype(np.int64)
    sets.append(([x], [x[idx] * 2, idx]))
case("masked_select_sym",
     [helper.make_node("Greater", ["x", "zero"], ["m"]),
      helper.make_node("NonZero", ["m"], ["nz"], name="nonzero"),
      helper.make_node("Squeeze", ["nz", "ax0"], ["idx"]),
      helper.make_node("Gather", ["x", "idx"], ["g"]),
      helper.make_node("Mul", ["g", "two"], ["y"])],
     [vi("x", ["N"])], [vi("y", None), vi("idx", None, I64)], sets,
     [const("zero", 0.0, np.float32), const("ax0", [0], np.int64), const("two", 2.0, np.float32)])

# NonZero of a 3-D int32 tensor, then Transpose (the [K, 3] coordinates torch.nonzero gives)
sets = []
for shape in ((2, 3, 4), (1, 5, 2), (3, 1, 1)):
    x = rng.integers(-1, 2, size=shape).astype(np.int32)
    if shape == (3, 1, 1):
        x[:] = 0
    nz = np.array(np.nonzero(x), dtype=np.int64)
    sets.append(([x], [nz.T.copy()]))
case("nonzero_3d_sym",
     [helper.make_node("NonZero", ["x"], ["nz"]), helper.make_node("Transpose", ["nz"], ["y"])],
     [vi("x", ["A", "B", "C"], TensorProto.INT32)], [vi("y", None, I64)], sets)

# Compress along axis 1 with a runtime condition, then Relu; and of the flattened x with a
# condition shorter than it
sets = []
for n, c in ((2, 5), (3, 1), (4, 6)):
    x = rng.standard_normal((n, c)).astype(np.float32)
    cond = rng.integers(0, 2, size=c).astype(bool)
    sets.append(([x, cond], [np.maximum(np.compress(cond, x, axis=1), 0)]))
case("compress_axis1_sym",
     [helper.make_node("Compress", ["x", "cond"], ["s"], axis=1), helper.make_node("Relu", ["s"], ["y"])],
     [vi("x", ["N", "C"]), vi("cond", ["C"], B)], [vi("y", None)], sets)
sets = []
for shape, k in (((2, 3), 4), ((3, 3), 9), ((1, 4), 0)):
    x = rng.integers(-5, 5, size=shape).astype(np.int64)
    cond = rng.integers(0, 2, size=k).astype(bool)
    sets.append(([x, cond], [np.compress(cond, x.reshape(-1)[:k])]))
case("compress_flat_sym", [helper.make_node("Compress", ["x", "cond"], ["y"])],
     [vi("x", ["N", "M"], I64), vi("cond", ["K"], B)], [vi("y", None, I64)], sets)

# Unique, every output: sorted over the flattened x; first-occurrence order of rows (axis 0)
sets = []
for n in (7, 1, 12):
    x = rng.integers(0, 4, size=n).astype(np.float32) - 1.5
    y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    sets.append(([x], [y, idx.astype(np.int64), inv.reshape(-1).astype(np.int64), cnt.astype(np.int64)]))
case("unique_sorted_sym", [helper.make_node("Unique", ["x"], ["y", "idx", "inv", "cnt"], sorted=1)],
     [vi("x", ["N"])], [vi("y", None), vi("idx", None, I64), vi("inv", None, I64), vi("cnt", None, I64)],
     sets, opset=11)


def unique_rows_first(x):
    """Unique rows of x in order of first occurrence: rows, first index, inverse, counts."""
    rows, first, inv = [], [], []
    for k, r in enumerate(x):
        for q, u in enumerate(rows):
            if np.array_equal(u, r):
                inv.append(q)
                break
        else:
            inv.append(len(rows))
            rows.append(r)
            first.append(k)
    inv = np.array(inv, np.int64)
    cnt = np.bincount(inv, minlength=len(rows)).astype(np.int64)
    return np.array(rows, x.dtype).reshape(len(rows), -1), np.array(first, np.int64), inv, cnt


sets = []
for n in (6, 3, 9):
    x = rng.integers(0, 2, size=(n, 2)).astype(np.int64)
    sets.append(([x], list(unique_rows_first(x))))
case("unique_rows_unsorted_sym",
     [helper.make_node("Unique", ["x"], ["y", "idx", "inv", "cnt"], sorted=0, axis=0)],
     [vi("x", ["N", 2], I64)], [vi("y", None, I64), vi("idx", None, I64), vi("inv", None, I64),
                                vi("cnt", None, I64)], sets, opset=11)


def iou(a, b):
    """IoU of two [y1, x1, y2, x2] boxes with corners in any order."""
    ay0, ay1 = sorted((a[0], a[2]))
    ax0, ax1 = sorted((a[1], a[3]))
    by0, by1 = sorted((b[0], b[2]))
    bx0, bx1 = sorted((b[1], b[3]))
    h = min(ay1, by1) - max(ay0, by0)
    w = min(ax1, bx1) - max(ax0, bx0)
    if h <= 0 or w <= 0:
        return 0.0
    inter = h * w
    uni = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter
    return inter / uni if uni > 0 else 0.0


def nms(boxes, scores, max_out, iou_thr, score_thr):
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            cand = [i for i in range(len(s)) if s[i] > score_thr]
            cand.sort(key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) == max_out:
                    break
                if all(not iou(boxes[b, i].astype(np.float64), boxes[b, k].astype(np.float64)) > iou_thr
                       for k in kept):
                    kept.append(i)
                    rows.append([b, c, i])
    return np.array(rows, np.int64).reshape(-1, 3)


# a detector's post-processing: NonMaxSuppression (3 boxes a class at most, IoU 0.5, score
# 0.2), then the kept boxes gathered by their index column
sets = []
for n in (12, 5, 40):
    ctr = rng.uniform(0, 10, size=(1, n, 2))
    size = rng.uniform(1, 4, size=(1, n, 2))
    boxes = np.concatenate([ctr - size / 2, ctr + size / 2], axis=2).astype(np.float32)
    scores = rng.uniform(0, 1, size=(1, 2, n)).astype(np.float32)
    if n == 5:
        scores[:] = 0.1  # nothing passes the score threshold
    sel = nms(boxes, scores, 3, 0.5, 0.2)
    sets.append(([boxes, scores], [sel, boxes[0][sel[:, 2]]]))
case("nms_detector_sym",
     [helper.make_node("NonMaxSuppression", ["boxes", "scores", "kmax", "iou", "sthr"], ["sel"]),
      helper.make_node("Gather", ["sel", "two"], ["bi"], axis=1),
      helper.make_node("Squeeze", ["boxes", "ax0"], ["b2"]),
      helper.make_node("Gather", ["b2", "bi"], ["kept"], axis=0)],
     [vi("boxes", [1, "N", 4]), vi("scores", [1, 2, "N"])], [vi("sel", None, I64), vi("kept", None)],
     sets, [const("kmax", [3], np.int64), const("iou", [0.5], np.float32),
            const("sthr", [0.2], np.float32), const("two", 2, np.int64), const("ax0", [0], np.int64)])

# for the unit tests
gen_util.write_model(HERE, "nonzero_sym.onnx", [helper.make_node("NonZero", ["x"], ["y"])],
                     [vi("x", ["N"])], [vi("y", None, I64)], (), 13, PROD)
gen_util.write_model(HERE, "nonzero_static.onnx", [helper.make_node("NonZero", ["x"], ["y"])],
                     [vi("x", [4])], [vi("y", None, I64)], (), 13, PROD)
