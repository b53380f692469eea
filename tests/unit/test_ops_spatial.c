/* test_ops_spatial.c — the spatial and linalg families (compiler/ops/spatial.c,
 * compiler/ops/linalg.c, templates/spatial_*.c, templates/linalg_det.c) and ReverseSequence
 * (compiler/ops/layout.c, templates/layout_revseq.c).
 *
 * Models with symbolic dims (tests/data/spatial/make_spatial.py) are compiled through the
 * library API and JIT-compiled with libtcc, and NAME_run is compared with values worked out by
 * hand here.  The backend node cases run through the harness under --dynamic.  The
 * bad_*.onnx models check the errors (one line, naming the node). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>

#define SPATIAL TU_DATA("spatial")

static void run(TuModel *m, const int64_t *dims, const void *const *ins, void *const *outs) {
    cr_assert_eq(tu_run(m, dims, ins, outs), 0, "%s: run failed", m->path);
}

/* Det of double [B, M, M]: a 3 x 3 whose first pivot is 0 (det 25), 2 I (det 8), a singular
 * one (det 0); then M = 1. */
Test(linalg, det_symbolic) {
    TuModel m;
    tu_open(&m, SPATIAL "det_sym.onnx", NULL);
    const int64_t dims[2] = {3, 3}, want[1] = {3};
    tu_expect_shape(&m, dims, 0, 1, want);
    const double x[27] = {0, 2, 1, 1, 0, 3, 4, 1, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2,
                          1, 2, 3, 2, 4, 6, 0, 1, 5};
    double y[3];
    const void *ins[1] = {x};
    void *outs[1] = {y};
    run(&m, dims, ins, outs);
    cr_assert(fabs(y[0] - 25) < 1e-9 && fabs(y[1] - 8) < 1e-9 && fabs(y[2]) < 1e-9,
              "det = %g %g %g", y[0], y[1], y[2]);
    const int64_t dims1[2] = {2, 1};
    const double x1[2] = {-3.5, 7};
    const void *ins1[1] = {x1};
    run(&m, dims1, ins1, outs);
    cr_assert(y[0] == -3.5 && y[1] == 7, "det = %g %g", y[0], y[1]);
    tu_close(&m);
}

/* ReverseSequence on int32 [T, B, 2] (time axis 0): lens {3, 1, 0, 2}: the first reversed
 * whole, the second and third copied, the last's first two steps swapped; a length above T is
 * an index error (-7, nothing written). */
Test(layout, reversesequence_symbolic) {
    TuModel m;
    tu_open(&m, SPATIAL "revseq_sym.onnx", NULL);
    const int64_t dims[2] = {3, 4}, want[3] = {3, 4, 2};
    tu_expect_shape(&m, dims, 0, 3, want);
    int32_t x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = i;
    const int64_t lens[4] = {3, 1, 0, 2};
    const void *ins[2] = {x, lens};
    void *outs[1] = {y};
    run(&m, dims, ins, outs);
    for (int t = 0; t < 3; t++)
        for (int b = 0; b < 4; b++)
            for (int k = 0; k < 2; k++) {
                int64_t len = lens[b];
                int s = t < len ? (int)len - 1 - t : t;
                cr_assert_eq(y[(t * 4 + b) * 2 + k], x[(s * 4 + b) * 2 + k], "y[%d, %d, %d]", t,
                             b, k);
            }
    const int64_t bad[4] = {3, 1, 0, 4};
    const void *bins[2] = {x, bad};
    cr_assert_eq(tu_run(&m, dims, bins, outs), O2C_RUN_EINDEX);
    tu_close(&m);
}

/* MaxUnpool 1-D, kernel 2 stride 2: indices into the unpooled [1, 2, 6], placed in the
 * output_shape [1, 2, 7] (padded at the end); index -1 is an index error (-7). */
Test(spatial, maxunpool_output_shape) {
    TuModel m;
    tu_open(&m, SPATIAL "maxunpool_const_shape.onnx", NULL);
    const int64_t want[3] = {1, 2, 7};
    tu_expect_shape(&m, NULL, 0, 3, want);
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t ind[6] = {1, 2, 5, 6, 8, 11};
    const float exp[14] = {0, 1, 2, 0, 0, 3, 0, 4, 0, 5, 0, 0, 6, 0};
    float y[14];
    const void *ins[2] = {x, ind};
    void *outs[1] = {y};
    run(&m, NULL, ins, outs);
    for (int i = 0; i < 14; i++)
        cr_assert_eq(y[i], exp[i], "y[%d] = %g, want %g", i, y[i], exp[i]);
    const int64_t bad[6] = {1, 2, 5, 6, -1, 11};
    const void *bins[2] = {x, bad};
    cr_assert_eq(tu_run(&m, NULL, bins, outs), O2C_RUN_EINDEX);
    tu_close(&m);
}

/* RoiAlign opset 10, max mode, spatial_scale 0.5, adaptive sampling: a constant image of 1
 * gives the largest bilinear corner weight of the bin's samples (both rois the same); a batch
 * index out of range is an index error (-7). */
Test(spatial, roialign_max_opset10) {
    TuModel m;
    tu_open(&m, SPATIAL "roialign_max10.onnx", NULL);
    const int64_t dims[5] = {1, 1, 4, 4, 2}, want[4] = {2, 1, 2, 2};
    tu_expect_shape(&m, dims, 0, 4, want);
    float x[16], y[8];
    for (int i = 0; i < 16; i++)
        x[i] = 1.0f;
    /* roi 0 is [0, 4] x [0, 4] on the feature map: bins of 2 x 2 pixels, samples at 0.5, 1.5,
     * 2.5, 3.5 on each axis; 0.5 .. 2.5 split their weight 0.5 / 0.5, 3.5 is clamped to the
     * last pixel (weight 1) */
    const float rois[8] = {0, 0, 8, 8, 0, 0, 8, 8};
    const int64_t bi[2] = {0, 0};
    const void *ins[3] = {x, rois, bi};
    void *outs[1] = {y};
    run(&m, dims, ins, outs);
    const float exp[4] = {0.25f, 0.5f, 0.5f, 1.0f};
    for (int i = 0; i < 4; i++) {
        cr_assert(fabsf(y[i] - exp[i]) < 1e-6f, "y[%d] = %g", i, y[i]);
        cr_assert(fabsf(y[4 + i] - exp[i]) < 1e-6f, "y[%d] = %g", 4 + i, y[4 + i]);
    }
    const int64_t bad[2] = {0, 5};
    const void *bins[3] = {x, rois, bad};
    cr_assert_eq(tu_run(&m, dims, bins, outs), O2C_RUN_EINDEX);
    tu_close(&m);
}

Test(spatial, node_cases_dynamic) {
    static const char *const names[] = {
        "test_gridsample", "test_gridsample_aligncorners_true", "test_gridsample_bicubic",
        "test_gridsample_bilinear", "test_gridsample_border_padding", "test_gridsample_nearest",
        "test_gridsample_reflection_padding", "test_gridsample_zeros_padding",
        "test_roialign_aligned_false", "test_roialign_aligned_true",
        "test_maxunpool_export_with_output_shape", "test_maxunpool_export_without_output_shape",
        "test_det_2d", "test_det_nd", "test_reversesequence_batch", "test_reversesequence_time",
    };
    tu_run_cases(TU_NODE_DATA, names, sizeof names / sizeof *names, "--dynamic");
}

Test(spatial, errors) {
    tu_expect_error(SPATIAL "bad_gridsample_5d.onnx", O2C_EMODEL,
                    "node 'gs' (GridSample): input rank 5: only 4-D inputs");
    tu_expect_error(SPATIAL "bad_gridsample_mode.onnx", O2C_EMODEL,
                    "mode 'trilinear' is not supported");
    tu_expect_error(SPATIAL "bad_det_nonsquare.onnx", O2C_EMODEL,
                    "node 'det' (Det): input is [.., 2, 3]: Det needs square matrices");
    tu_expect_error(SPATIAL "bad_maxunpool_rt_shape.onnx", O2C_EMODEL,
                    "node 'mu' (MaxUnpool): output_shape 'os' is not known at compile time");
}
