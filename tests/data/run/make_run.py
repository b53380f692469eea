"""Test files of onnx2c-run's .npy support, written by NumPy itself (committed: CI needs no Python).

    /usr/bin/python3 tests/data/run/make_run.py

- tests/data/run/<model>/NAME.npy: the inputs and reference outputs of
  tests/models/<model>/test_data_set_0, by their ONNX names (a user's .npy files; tools/run-check.sh
  runs onnx2c-run on them with --input and --compare).
- tests/data/run/dtypes/: one small array per element type onnx2c reads, the files it must refuse
  (big-endian, Fortran order, an object array, a truncated one), a scalar, a version 2.0 file
  (tests/unit/test_npy.c).
"""
import os

import numpy as np
import onnx
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "models")

for model in ["segnet_dynamic", "survey_adv_indexing", "survey_length_mask", "survey_masked_select"]:
    src = os.path.join(root, model)
    m = onnx.load(os.path.join(src, "model.onnx"))
    init = {i.name for i in m.graph.initializer}
    inputs = [i.name for i in m.graph.input if i.name not in init]
    outputs = [o.name for o in m.graph.output]
    dst = os.path.join(here, model)
    os.makedirs(dst, exist_ok=True)
    for prefix, names in (("input", inputs), ("output", outputs)):
        for k, name in enumerate(names):
            t = onnx.TensorProto()
            with open(os.path.join(src, "test_data_set_0", "%s_%d.pb" % (prefix, k)), "rb") as f:
                t.ParseFromString(f.read())
            np.save(os.path.join(dst, name + ".npy"), numpy_helper.to_array(t))

d = os.path.join(here, "dtypes")
os.makedirs(d, exist_ok=True)
for name in ["float32", "float64", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
             "int64", "uint64"]:
    np.save(os.path.join(d, name + ".npy"), (np.arange(6) - 2).astype(name).reshape(2, 3))
np.save(os.path.join(d, "bool.npy"), np.array([[True, False, True], [False, False, True]]))
np.save(os.path.join(d, "scalar.npy"), np.float32(2.5))
np.save(os.path.join(d, "empty.npy"), np.zeros((0, 4), np.float32))
np.save(os.path.join(d, "vector.npy"), np.arange(5, dtype=np.int64))
np.save(os.path.join(d, "bad_bigendian.npy"), np.arange(6, dtype=">f4").reshape(2, 3))
np.save(os.path.join(d, "bad_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(os.path.join(d, "bad_object.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)
with open(os.path.join(d, "v2.npy"), "wb") as f:
    np.lib.format.write_array(f, (np.arange(6) - 2).astype(np.float32).reshape(2, 3), version=(2, 0))
with open(os.path.join(d, "float32.npy"), "rb") as f:
    whole = f.read()
with open(os.path.join(d, "bad_truncated.npy"), "wb") as f:
    f.write(whole[:-3])
print("wrote tests/data/run/")
