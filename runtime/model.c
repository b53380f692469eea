/* model.c — one model compiled by onnx2c and by a C compiler, run through its generated API
 * (CONTRACT.md §2): the steps onnx2c-test (harness.c) and onnx2c-run (run.c) share.
 *
 *   jm_compile      onnx2c_compile with the prefix "model" (--weights: the blob streamed to a
 *                   temporary file)
 *   jm_load         the C through the JIT (libtcc, or --cc), the API's functions and names;
 *                   --weights: the blob mapped (64-byte aligned) and NAME_weights_check
 *   jm_twin         --weights: the inline build beside it, whose outputs jm_run compares
 *   jm_new_dims     the dims array: input dims unset (0), data dims -1 (§2b)
 *   jm_bind_dims    the input dims that input tensors' shapes give
 *   jm_alloc_output an output buffer at its size for these dims (a data dim: its bound)
 *   jm_run          the workspace, NAME_run or NAME_run_w (timed, repeated), the data dims it
 *                   must set; with a twin, its run and the same output bytes
 *   jm_compare      an output against a reference: shape, then check_output (draws.c):
 *                   type, values, or what random ops guarantee
 *   jm_read_set     the PREFIX_K.pb files of a data set folder (CONTRACT.md §3) */
#include "runtime.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int jm_compile(JitModel *m, const char *path, const Options *opt, char *msg, size_t msglen) {
    memset(m, 0, sizeof *m);
    Options o = opt ? *opt : (Options){0};
    o.name = "model";
    o.out_path = "model.c";
    o.c_file = NULL;
    if (o.weights_blob) { /* as onnx2c --weights: the blob streamed, never all in memory */
        o.weights_name = "model.bin";
        if (!(o.weights_file = m->weights_file = tmpfile())) {
            snprintf(msg, msglen, "compile: a temporary file for the weights: %s", strerror(errno));
            return O2C_EIO;
        }
        m->blob = true;
    } else
        o.weights_file = NULL;
    char err[1200];
    int st = onnx2c_compile(path, &o, &m->out, err, sizeof err);
    if (st)
        snprintf(msg, msglen, "compile: %s", err);
    else if (m->weights_file && fflush(m->weights_file)) {
        snprintf(msg, msglen, "compile: writing the weights: %s", strerror(errno));
        onnx2c_output_free(&m->out);
        st = O2C_EIO;
    }
    if (st && m->weights_file) {
        fclose(m->weights_file);
        m->weights_file = NULL;
    }
    return st;
}

/* Maps the blob jm_compile wrote (page-aligned, so 64-byte aligned as NAME_run_w wants) and
 * checks it once with NAME_weights_check. */
static int load_weights(JitModel *m, char *msg, size_t msglen) {
    struct stat st;
    int fd = fileno(m->weights_file);
    if (fstat(fd, &st) || st.st_size <= 0) {
        snprintf(msg, msglen, "weights: the blob is empty or unreadable");
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(msg, msglen, "weights: cannot map the blob: %s", strerror(errno));
        return -1;
    }
    fclose(m->weights_file); /* the mapping stays; the file goes when it is unmapped */
    m->weights_file = NULL;
    m->weights = p;
    m->weights_size = (size_t)st.st_size;
    int r = m->weights_check(m->weights, m->weights_size);
    if (r) {
        snprintf(msg, msglen, "weights: model_weights_check returned %d (%s)", r, m->strerror(r));
        return -1;
    }
    return 0;
}

int jm_load(JitModel *m, const char *cc, char *msg, size_t msglen) {
    char err[1200];
    m->jit = jit_compile(m->out.c_src, "model.h", m->out.h_src, cc, err, sizeof err);
    if (!m->jit) {
        snprintf(msg, msglen, "cc: %s", err);
        return -1;
    }
    m->check = (JmCheckFn)jit_symbol(m->jit, "model_check");
    m->workspace_size = (JmSizeFn)jit_symbol(m->jit, "model_workspace_size");
    m->input_shape = (JmShapeFn)jit_symbol(m->jit, "model_input_shape");
    m->output_shape = (JmShapeFn)jit_symbol(m->jit, "model_output_shape");
    m->run = m->blob ? NULL : (JmRunFn)jit_symbol(m->jit, "model_run");
    m->run_w = m->blob ? (JmRunWFn)jit_symbol(m->jit, "model_run_w") : NULL;
    m->weights_check =
        m->blob ? (JmWeightsCheckFn)jit_symbol(m->jit, "model_weights_check") : NULL;
    m->strerror = (JmStrerrorFn)jit_symbol(m->jit, "model_strerror");
    m->dim_names = jit_symbol(m->jit, "model_dim_names");
    m->input_names = jit_symbol(m->jit, "model_input_names");
    m->output_names = jit_symbol(m->jit, "model_output_names");
    if (!m->check || !m->workspace_size || !m->input_shape || !m->output_shape ||
        !(m->blob ? m->run_w && m->weights_check : m->run != NULL) || !m->strerror ||
        !m->input_names || !m->output_names ||
        (!m->dim_names && m->out.ndims + m->out.ndata_dims > 0)) {
        snprintf(msg, msglen, "api: a generated function is missing");
        return -1;
    }
    return m->blob ? load_weights(m, msg, msglen) : 0;
}

int jm_twin(JitModel *m, const char *path, const Options *opt, const char *cc, char *msg,
            size_t msglen) {
    Options o = opt ? *opt : (Options){0};
    o.weights_blob = false;
    char err[1200];
    JitModel *t = malloc(sizeof *t);
    if (!t) {
        snprintf(msg, msglen, "inline weights: out of memory");
        return -1;
    }
    int st = jm_compile(t, path, &o, err, sizeof err);
    if (!st && jm_load(t, cc, err, sizeof err)) {
        jm_close(t);
        st = -1;
    }
    if (st) {
        free(t);
        snprintf(msg, msglen, "inline weights: %s", err);
        return -1;
    }
    m->twin = t;
    return 0;
}

void jm_close(JitModel *m) {
    jit_free(m->jit);
    onnx2c_output_free(&m->out);
    if (m->weights)
        munmap((void *)m->weights, m->weights_size);
    if (m->weights_file)
        fclose(m->weights_file);
    if (m->twin) {
        jm_close(m->twin);
        free(m->twin);
    }
    memset(m, 0, sizeof *m);
}

int64_t *jm_new_dims(const JitModel *m) {
    int64_t *dims = calloc((size_t)(m->out.ndims + m->out.ndata_dims) + 1, sizeof(int64_t));
    for (int d = m->out.ndims; dims && d < m->out.ndims + m->out.ndata_dims; d++)
        dims[d] = -1; /* data dims (CONTRACT §2b): NAME_output_shape gives their bounds */
    return dims;
}

void jm_bind_dims(const JitModel *m, Tensor *const *in, int nin, int64_t *dims) {
    for (int b = 0; b < m->out.nbind; b++) {
        const DimBinding *db = &m->out.bind[b];
        if (db->input < nin && in[db->input] && db->axis < in[db->input]->rank)
            dims[db->dim] = in[db->input]->dims[db->axis];
    }
}

void jm_shape_text(char *buf, size_t cap, int rank, const int64_t *shape) {
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < rank && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : "", (long long)shape[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

bool jm_same_shape(int i, int rank, const int64_t *shape, const Tensor *want, char *msg,
                   size_t msglen) {
    bool same = rank == want->rank;
    for (int d = 0; same && d < rank; d++)
        same = shape[d] == want->dims[d];
    if (same)
        return true;
    char a[200], b[200];
    jm_shape_text(a, sizeof a, rank, shape);
    jm_shape_text(b, sizeof b, want->rank, want->dims);
    snprintf(msg, msglen, "shape: output %d is %s, want %s", i, a, b);
    return false;
}

int jm_alloc_output(const JitModel *m, const int64_t *dims, int i, void **buf, size_t *bytes,
                    char *msg, size_t msglen) {
    int64_t shape[JM_MAX_RANK];
    *buf = NULL;
    int r = m->output_shape(dims, i, shape);
    if (r < 0 || r > JM_MAX_RANK) {
        snprintf(msg, msglen, "outputs: output %d: model_output_shape returned %d", i, r);
        return -1;
    }
    size_t n = i < m->out.noutputs ? onnx2c_dtype_size(m->out.out_types[i]) : 16;
    for (int d = 0; d < r; d++) {
        if (shape[d] < 0 || (shape[d] && n > SIZE_MAX / 2 / (size_t)shape[d])) {
            snprintf(msg, msglen, "outputs: output %d is too large", i);
            return -1;
        }
        n *= (size_t)shape[d];
    }
    *buf = malloc(n + 64);
    if (!*buf) {
        snprintf(msg, msglen, "outputs: no memory for output %d (%zu bytes)", i, n);
        return -1;
    }
    memset(*buf, 0xAB, n + 64); /* garbage, so that an unwritten output cannot pass */
    if (bytes)
        *bytes = n;
    return r;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The twin (jm_twin) run on the same inputs after the run that left dims and outputs: the
 * same data dims, the same bytes in every output. */
static int twin_check(const JitModel *m, const int64_t *dims, const void *const *inputs,
                      void *const *outputs, char *msg, size_t msglen) {
    const JitModel *t = m->twin;
    int nout = m->out.noutputs, nd = m->out.ndims + m->out.ndata_dims;
    int64_t *td = jm_new_dims(t);
    void **touts = calloc((size_t)nout + 1, sizeof(void *));
    char tm[600];
    int rc = -1;
    if (!td || !touts) {
        snprintf(msg, msglen, "weights: out of memory");
        goto done;
    }
    memcpy(td, dims, sizeof(int64_t) * (size_t)m->out.ndims); /* the data dims stay -1 */
    for (int i = 0; i < nout; i++)
        if (jm_alloc_output(t, td, i, &touts[i], NULL, tm, sizeof tm) < 0) {
            snprintf(msg, msglen, "weights: the inline build: %s", tm);
            goto done;
        }
    if (jm_run(t, td, inputs, touts, 1, NULL, tm, sizeof tm)) {
        snprintf(msg, msglen, "weights: the inline build: %s", tm);
        goto done;
    }
    for (int d = m->out.ndims; d < nd; d++)
        if (td[d] != dims[d]) {
            snprintf(msg, msglen, "weights: data dim %d is %lld, the inline build's %lld", d,
                     (long long)dims[d], (long long)td[d]);
            goto done;
        }
    for (int i = 0; i < nout; i++) {
        int64_t shape[JM_MAX_RANK];
        int r = m->output_shape(dims, i, shape);
        size_t n = onnx2c_dtype_size(m->out.out_types[i]);
        for (int d = 0; d < r && d < JM_MAX_RANK; d++)
            n *= (size_t)shape[d];
        if (outputs[i] && r >= 0 && memcmp(outputs[i], touts[i], n)) {
            snprintf(msg, msglen, "weights: output %d: the inline build gave other bytes", i);
            goto done;
        }
    }
    rc = 0;
done:
    for (int i = 0; touts && i < nout; i++)
        free(touts[i]);
    free(touts);
    free(td);
    return rc;
}

int jm_run(const JitModel *m, int64_t *dims, const void *const *inputs, void *const *outputs,
           int repeat, double *seconds, char *msg, size_t msglen) {
    size_t wsb = m->workspace_size(dims);
    void *ws = NULL;
    if (wsb && !(ws = aligned_alloc(64, (wsb + 63) / 64 * 64))) {
        snprintf(msg, msglen, "run: no memory for a workspace of %zu bytes", wsb);
        return -1;
    }
    int nd = m->out.ndims + m->out.ndata_dims;
    for (int k = 0; k < repeat; k++) {
        for (int d = m->out.ndims; d < nd; d++)
            dims[d] = -1; /* the caller's part of the data dims protocol (CONTRACT §2b) */
        double t0 = now();
        int r = m->blob ? m->run_w(dims, inputs, outputs, ws, m->weights)
                        : m->run(dims, inputs, outputs, ws);
        if (seconds)
            seconds[k] = now() - t0;
        if (r) {
            free(ws);
            snprintf(msg, msglen, "run: model_run%s returned %d (%s)", m->blob ? "_w" : "", r,
                     m->strerror(r));
            return -1;
        }
    }
    free(ws);
    for (int d = m->out.ndims; d < nd; d++)
        if (dims[d] < 0) {
            snprintf(msg, msglen, "run: model_run left data dim %d at %lld", d, (long long)dims[d]);
            return -1;
        }
    return m->twin ? twin_check(m, dims, inputs, outputs, msg, msglen) : 0;
}

bool jm_compare(const JitModel *m, const int64_t *dims, int i, Tensor *const *in, int nin,
                Tensor *const *want, void *const *got, int nout, char *msg, size_t msglen) {
    int64_t shape[JM_MAX_RANK];
    int r = m->output_shape(dims, i, shape); /* after the run: the actual sizes of data dims */
    if (r < 0 || r > JM_MAX_RANK) {
        snprintf(msg, msglen, "outputs: output %d: model_output_shape returned %d", i, r);
        return false;
    }
    if (!jm_same_shape(i, r, shape, want[i], msg, msglen))
        return false;
    char cm[300];
    if (!check_output(&m->out, i, in, nin, want, got, nout, cm, sizeof cm)) {
        snprintf(msg, msglen, "compare: output %d: %s", i, cm);
        return false;
    }
    return true;
}

int jm_read_set(const char *dir, const char *prefix, Tensor ***out, char *err, size_t errlen) {
    int n = 0;
    Tensor **ts = calloc(JM_MAX_IO, sizeof(Tensor *));
    for (int i = 0; ts && i < JM_MAX_IO; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s_%d.pb", dir, prefix, i);
        if (access(path, F_OK) != 0)
            break;
        if (onnx2c_load_tensor(path, &ts[i], err, errlen)) {
            jm_free_set(ts, i);
            return -1;
        }
        n++;
    }
    if (!ts) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = ts;
    return n;
}

void jm_free_set(Tensor **ts, int n) {
    for (int i = 0; ts && i < n; i++)
        onnx2c_tensor_free(ts[i]);
    free(ts);
}
