#!/usr/bin/python3
"""Writes the cases and models of the text family (compiler/ops/text.c: TfIdfVectorizer; read
by tests/unit/test_ops_text.c and, for cases/, by ctest's op_cases_*), next to this script:

    /usr/bin/python3 tests/data/text/make_text.py

The reference (tfidf below) counts by enumeration, as ONNX Runtime and ONNX's reference
implementation do: a 1-gram once per position; an n-gram of n >= 2 once per start i and skip
s in [0, max_skip_count] with items x[i + k (s + 1)], k < n, inside the row; then TF (count),
IDF (w[j] when count > 0) or TFIDF (count * w[j]), weights read per output column j (ones when
absent).  Output float32.

Runnable cases:
  cases/tfidf_weights_i64_sym  TFIDF with weights, int64 x[N, C], 1- to 3-grams, skips up to 2,
                               a pool of four levels (the 4-grams not counted), ngram_indexes a
                               permutation; sets [2, 9], [3, 2] (C < 3), [1, 15]
  cases/idf_weights_i32_1d     IDF with weights, int32 x[C] (1-D, symbolic), 2- and 3-grams,
                               skip 1, unigrams in the pool not counted; sets [12], [2], [1]
  cases/idf_noweights_uni      IDF without weights, 1-grams only, int64 x[3, 8], max_skip_count
                               4 (does not multiply 1-grams)
  cases/tf_cols_shared_gap     TF, int32 x[2, 10]: two 2-grams into one column, columns no
                               n-gram counts into, an empty 1-gram level
  cases/tf_random_sym          TF, int64 x[N, 40], 30 random 2-grams and 40 3-grams of a
                               vocabulary of 6, skips up to 3 (the binary search over a big
                               level); sets N = 4 and N = 1
  cases/tfidf_noweights_3gram  TFIDF without weights (= TF), 3-grams only, skip 5, int32 x[16]
Models to refuse (one line naming the node):
  bad_strings.onnx        a string input with pool_strings
  bad_pool_strings.onnx   an int64 input with pool_strings
  bad_type.onnx           a float input
  bad_rank.onnx           x[2, 3, 4]
  bad_mode.onnx           mode 'BM25'
  bad_gram_range.onnx     min_gram_length 3 > max_gram_length 2
  bad_skip.onnx           max_skip_count -1
  bad_no_pool.onnx        no pool_int64s
  bad_counts.onnx         a 2-gram level of 5 items
  bad_counts_order.onnx   ngram_counts [0, 6, 4]
  bad_indexes_count.onnx  4 ngram_indexes for 5 n-grams
  bad_index_negative.onnx ngram_indexes with -1
  bad_weights_len.onnx    3 weights for 5 n-grams
  bad_weights_gap.onnx    IDF with 5 weights and output column 5 (weights scale columns)
  bad_duplicate.onnx      the 2-gram (5, 6) twice
"""
import os
import sys

import numpy as np
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_util  # noqa: E402
from gen_util import vi  # noqa: E402

I32, I64, F = TP.INT32, TP.INT64, TP.FLOAT
RNG = np.random.default_rng(9)


def pool_grams(counts, pool, indexes):
    """{n-gram tuple: output column} of the pool, and its n-gram lengths in order."""
    grams, lens = {}, []
    k = 0
    for lv, start in enumerate(counts):
        n = lv + 1
        end = counts[lv + 1] if lv + 1 < len(counts) else len(pool)
        for at in range(start, end, n):
            grams[tuple(pool[at:at + n])] = (n, indexes[k])
            k += 1
    assert k == len(indexes) and len(grams) == k
    return grams


def tfidf(x, a):
    """The reference: x [C] or [N, C] of ints, a the node's attributes."""
    grams = pool_grams(a["ngram_counts"], a["pool_int64s"], a["ngram_indexes"])
    cols = max(a["ngram_indexes"]) + 1
    lo, hi, skip = a["min_gram_length"], a["max_gram_length"], a["max_skip_count"]
    w = a.get("weights")
    rows = x.reshape(-1, x.shape[-1]) if x.ndim == 2 else x.reshape(1, -1)
    y = np.zeros((rows.shape[0], cols), np.float32)
    for r, row in enumerate(rows):
        row = [int(v) for v in row]
        cnt = [0] * cols
        found = []
        if lo == 1:
            found += [(v,) for v in row]
        for s in range(skip + 1):
            d = s + 1
            for i in range(len(row)):
                for n in range(max(lo, 2), hi + 1):
                    if i + (n - 1) * d < len(row):
                        found.append(tuple(row[i + q * d] for q in range(n)))
        for g in found:
            if g in grams and lo <= grams[g][0] <= hi:
                cnt[grams[g][1]] += 1
        for j in range(cols):
            c = np.float32(cnt[j])
            if a["mode"] == "TF":
                y[r, j] = c
            elif a["mode"] == "IDF":
                y[r, j] = (np.float32(w[j]) if w is not None else np.float32(1)) if c > 0 else 0
            else:
                y[r, j] = c * np.float32(w[j]) if w is not None else c
    return y.reshape(cols) if x.ndim < 2 else y


def node(name, a):
    return h.make_node("TfIdfVectorizer", ["X"], ["Y"], name=name, **a)


def case(name, a, ttype, shape, out_shape, data):
    """data: one int array per data set."""
    m = gen_util.make_model(name, node(name, a), [vi("X", shape, ttype)],
                            [vi("Y", out_shape, F)], opset=9, producer="make_text.py")
    dt = np.int32 if ttype == I32 else np.int64
    sets = [([np.asarray(x, dt)], [tfidf(np.asarray(x, dt), a)]) for x in data]
    gen_util.write_case(os.path.join(HERE, "cases", name), m, sets)


def tokens(shape, vocab):
    return RNG.integers(0, vocab, size=shape)


def f32(vs):
    return [float(np.float32(v)) for v in vs]


# TFIDF with weights: 1- to 3-grams, skips up to 2, 4-grams in the pool not counted
a1 = {"mode": "TFIDF", "min_gram_length": 1, "max_gram_length": 3, "max_skip_count": 2,
      "ngram_counts": [0, 3, 9, 18],
      "pool_int64s": [1, 3, 4,                       # 1-grams
                      1, 2, 3, 1, 2, 4,              # 2-grams
                      1, 2, 3, 2, 1, 3, 4, 4, 1,     # 3-grams
                      1, 2, 3, 4],                   # a 4-gram (outside the lengths counted)
      "ngram_indexes": [7, 0, 5, 2, 6, 1, 3, 4, 8, 9],
      "weights": f32([0.5, 1.25, 2.0, 0.75, 3.5, 1.5, 0.125, 2.25, 4.0, 0.3])}
case("tfidf_weights_i64_sym", a1, I64, ["N", "C"], ["N", 10],
     [tokens((2, 9), 5), [[1, 2], [4, 4], [3, 1]], tokens((1, 15), 5)])

# IDF with weights, 1-D, 2- and 3-grams, skip 1; the 1-grams of the pool are not counted
a2 = {"mode": "IDF", "min_gram_length": 2, "max_gram_length": 3, "max_skip_count": 1,
      "ngram_counts": [0, 2, 8],
      "pool_int64s": [7, 8, 7, 8, 8, 9, 9, 7, 7, 9, 8, 9, 7, 7],
      "ngram_indexes": [3, 4, 0, 1, 2, 5, 6],
      "weights": f32([1.5, 0.25, 3.0, 0.6, 2.5, 0.9, 1.75])}
case("idf_weights_i32_1d", a2, I32, ["C"], [7],
     [[7, 8, 9, 7, 9, 8, 7, 7, 8, 9, 9, 7], [8, 9], [7]])

# IDF without weights: 1-grams only; skips do not multiply 1-gram counts
a3 = {"mode": "IDF", "min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 4,
      "ngram_counts": [0, 4], "pool_int64s": [10, -3, 2, 1000000000000, 10, -3],
      "ngram_indexes": [0, 1, 2, 3, 4]}
case("idf_noweights_uni", a3, I64, [3, 8], [3, 5],
     [[[10, 10, 2, 5, -3, 10, -3, 7], [1, 1, 1, 1, 1, 1, 1, 1],
       [1000000000000, 2, 2, 2, 10, -3, 0, 0]]])

# TF: two 2-grams count into column 1, columns 0, 2, 3 are never counted, no 1-grams in the pool
a4 = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 1,
      "ngram_counts": [0, 0], "pool_int64s": [1, 2, 2, 1, 3, 3],
      "ngram_indexes": [1, 1, 4]}
case("tf_cols_shared_gap", a4, I32, [2, 10], [2, 5],
     [[[1, 2, 1, 2, 3, 3, 3, 1, 2, 1], [2, 2, 2, 1, 1, 1, 3, 2, 3, 1]]])

# TF over a big pool: 30 random 2-grams and 40 random 3-grams of a vocabulary of 6
bi = sorted({tuple(int(v) for v in tokens(2, 6)) for _ in range(200)})
tri = sorted({tuple(int(v) for v in tokens(3, 6)) for _ in range(400)})
RNG.shuffle(bi)
RNG.shuffle(tri)
bi, tri = bi[:30], tri[:40]
grams = [g for g in bi] + [g for g in tri]
perm = [int(v) for v in RNG.permutation(len(grams))]
a5 = {"mode": "TF", "min_gram_length": 2, "max_gram_length": 3, "max_skip_count": 3,
      "ngram_counts": [0, 0, 2 * len(bi)], "pool_int64s": [v for g in grams for v in g],
      "ngram_indexes": perm}
case("tf_random_sym", a5, I64, ["N", 40], ["N", len(grams)],
     [tokens((4, 40), 6), tokens((1, 40), 6)])

# TFIDF without weights is TF: 3-grams only, skip 5
a6 = {"mode": "TFIDF", "min_gram_length": 3, "max_gram_length": 3, "max_skip_count": 5,
      "ngram_counts": [0, 1, 1], "pool_int64s": [4, 1, 2, 3, 2, 2, 2],
      "ngram_indexes": [2, 0, 1]}
case("tfidf_noweights_3gram", a6, I32, [16], [3],
     [[1, 2, 3, 2, 1, 2, 2, 3, 3, 2, 1, 2, 2, 2, 3, 1]])


# ---- models to refuse
def bad(file, a, ttype=I64, shape=(2, 6)):
    gen_util.write_model(HERE, file, node("tfidf", a), [vi("X", list(shape), ttype)],
                         [vi("Y", None, F)], opset=9, producer="make_text.py")


ok = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 0,
      "ngram_counts": [0, 2], "pool_int64s": [1, 2, 5, 6, 7, 8, 6, 7],
      "ngram_indexes": [0, 1, 2, 3, 4]}
strs = {k: v for k, v in ok.items() if k != "pool_int64s"}
strs["pool_strings"] = ["a", "b", "c", "d", "e", "f", "d", "e"]
bad("bad_strings.onnx", strs, TP.STRING)
bad("bad_pool_strings.onnx", strs)
bad("bad_type.onnx", ok, F)
bad("bad_rank.onnx", ok, I64, (2, 3, 4))
bad("bad_mode.onnx", {**ok, "mode": "BM25"})
bad("bad_gram_range.onnx", {**ok, "min_gram_length": 3, "max_gram_length": 2})
bad("bad_skip.onnx", {**ok, "max_skip_count": -1})
bad("bad_no_pool.onnx", {k: v for k, v in ok.items() if k != "pool_int64s"})
bad("bad_counts.onnx", {**ok, "pool_int64s": [1, 2, 5, 6, 7, 8, 6]})
bad("bad_counts_order.onnx", {**ok, "ngram_counts": [0, 6, 4]})
bad("bad_indexes_count.onnx", {**ok, "ngram_indexes": [0, 1, 2, 3]})
bad("bad_index_negative.onnx", {**ok, "ngram_indexes": [0, 1, -1, 3, 4]})
bad("bad_weights_len.onnx", {**ok, "mode": "TFIDF", "weights": [1.0, 2.0, 3.0]})
bad("bad_weights_gap.onnx", {**ok, "mode": "IDF", "ngram_indexes": [0, 1, 2, 3, 5],
                             "weights": [1.0, 2.0, 3.0, 4.0, 5.0]})
bad("bad_duplicate.onnx", {**ok, "pool_int64s": [1, 2, 5, 6, 7, 8, 5, 6]})
