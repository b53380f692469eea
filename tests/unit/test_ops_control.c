/* test_ops_control.c — control flow (compiler/ops/control.c) and sequences
 * (compiler/ops/sequence.c) through the generated API: a constraint inside an If branch binds
 * only when the branch runs, a Loop's growing list is bounded by --max (-5 past it), and
 * malformed control flow is a clear error.  The models come from
 * tests/data/control/make_control.py; the runnable cases of tests/data/control/cases and
 * tests/data/sequence/cases run through onnx2c-test (ctest's op_cases_*). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <string.h>

#define CONTROL TU_DATA("control")

/* z = cond ? x + y : -x with x [N], y [M]: x + y needs N and M to broadcast, but only when the
 * then branch runs; NAME_check accepts N = 3, M = 2. */
Test(control, branch_constraint_binds_only_where_it_runs) {
    TuModel m;
    tu_open(&m, CONTROL "if_guarded.onnx", NULL);
    const float x[3] = {1, -2, 3}, y[2] = {10, 20};
    int64_t dims[2] = {3, 2};
    cr_assert_eq(m.check(dims), 0, "NAME_check does not test the branch's constraint");
    float z[3] = {0, 0, 0};
    uint8_t no = 0, yes = 1;
    const void *ins_e[3] = {&no, x, y};
    void *outs[1] = {z};
    cr_assert_eq(tu_run(&m, dims, ins_e, outs), 0);
    cr_assert(z[0] == -1 && z[1] == 2 && z[2] == -3, "else branch: %g %g %g", z[0], z[1], z[2]);
    const void *ins_t[3] = {&yes, x, y};
    int rc = tu_run(&m, dims, ins_t, outs);
    cr_assert(rc <= O2C_RUN_ECONSTRAINT, "then branch with N = 3, M = 2 fails its constraint: %d", rc);
    int64_t ok[2] = {3, 1}; /* M = 1 broadcasts */
    const float y1[1] = {10};
    const void *ins_t1[3] = {&yes, x, y1};
    cr_assert_eq(tu_run(&m, ok, ins_t1, outs), 0);
    cr_assert(z[0] == 11 && z[1] == 8 && z[2] == 13, "then branch: %g %g %g", z[0], z[1], z[2]);
    tu_close(&m);
}

Test(control, malformed_control_flow_is_a_clear_error) {
    static const struct {
        const char *file, *what;
    } cases[] = {
        {"if_no_branches.onnx", "node 'If_0' (If): needs its graph attributes (then_branch, else_branch)"},
        {"relu_with_graph.onnx", "attribute 'body' is a graph: only If, Loop, Scan and SequenceMap take subgraphs"},
        {"if_ranks_differ.onnx", "the then branch gives float [N], the else branch float [1, N]"},
        {"loop_bad_body.onnx", "with 1 loop-carried values it must take 3 and give at least 2"},
        {"if_undefined_output.onnx", "node 'If_0' (If): subgraph output 'nowhere' is not produced"},
        {"seq_loop_runtime_m.onnx", "give one with --max loop_acc_0=N"},
        {"if_optional_differs.onnx", "an optional whose value is decided at run time is not supported"},
        {"scope_escape.onnx", "node 'Identity_1' (Identity): input 'z_t"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, CONTROL "%s", cases[i].file);
        tu_expect_error(path, O2C_EMODEL, cases[i].what);
    }
}

/* A list appended to M times (M runtime data) and stacked: --max bounds its length; the
 * buffers are planned at the bound, the run returns -5 when M passes it. */
Test(control, loop_list_bounded_by_max) {
    Options opt = {0};
    DimSetting mx = {"loop_acc_0", 4};
    opt.nmax = 1;
    opt.max = &mx;
    TuModel m;
    tu_open_opts(&m, CONTROL "seq_loop_runtime_m.onnx", &opt, NULL);
    const float x[2] = {1.5f, -2};
    float y[2 * 8];
    for (int64_t steps = 0; steps <= 5; steps++) {
        int64_t dims[4] = {2, -1, -1, -1}; /* N, then the data dims: the list's lengths */
        for (int k = 0; k < 16; k++)
            y[k] = -7;
        const void *ins[2] = {&steps, x};
        void *outs[1] = {y};
        int rc = tu_run_data(&m, dims, ins, outs);
        if (steps > 4) {
            cr_assert_eq(rc, O2C_RUN_EBOUND, "M = %lld passes the bound 4: %d", (long long)steps, rc);
            continue;
        }
        cr_assert_eq(rc, 0, "M = %lld: %d", (long long)steps, rc);
        int64_t shape[2];
        cr_assert_eq(m.oshape(dims, 0, shape), 2);
        cr_assert(shape[0] == steps && shape[1] == 2, "y is [%lld, 2]: [%lld, %lld]",
                  (long long)steps, (long long)shape[0], (long long)shape[1]);
        for (int64_t k = 0; k < steps; k++)
            cr_assert(y[2 * k] == 1.5f && y[2 * k + 1] == -2, "y stacks x on a new axis 0 (M = %lld)",
                      (long long)steps);
        cr_assert_eq(y[2 * steps], -7, "nothing written past the actual size");
    }
    tu_close(&m);
}
