/* draws.c — what onnx2c-test, onnx2c-run (both through model.c's jm_compare) and onnx2c-emb
 * check of one output of a run: its element type, then its values (compare.c, CONTRACT.md §3)
 * or, for an output that depends on random draws, the property its ops guarantee.  The type must be the reference's for every output.
 *
 * No reference can hold the values of onnx2c's generator (README "Op notes"), so such an
 * output passes when its shape (compared by the caller) and type are the reference's and:
 *
 *   BINARY    every element is 0 or 1, and 0 / 1 where the rule on ref's element says
 *             (Bernoulli: 0 where p <= 0, 1 where p >= 1)
 *   RANGE     every element in [lo, hi)                 FINITE   every element finite
 *   CLASS     every element a class in [0, classes), never one whose log-probability in its
 *             row of ref is -inf (when the row has one above -inf and no NaN)
 *   DROPOUT   training off, or ratio 0: the reference's values (compare_tensor); otherwise
 *   MASK      every output element 0 or x * 1 / (1 - ratio) (the contract's float tolerance,
 *             x from ref), every mask element 0 or 1; with both outputs, the mask is 1 exactly
 *             where the output kept its element (1: x / (1 - ratio), 0: exactly 0); ratio < 0
 *             keeps every element, ratio >= 1 drops every one
 *
 * Which outputs these are, and the constants, come from the compiler (Output.checks,
 * compiler/ops/random.c). */
#include "runtime.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool fail(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *msg, size_t msglen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return false;
}

static bool holds(CmpKind k, double x, double at) {
    switch (k) {
    case O2C_CMP_LT: return x < at;
    case O2C_CMP_LE: return x <= at;
    case O2C_CMP_GT: return x > at;
    case O2C_CMP_GE: return x >= at;
    default: return false;
    }
}

static const char *cmp_text(CmpKind k) {
    static const char *const t[] = {"?", "<", "<=", ">", ">="};
    return t[k >= O2C_CMP_LT && k <= O2C_CMP_GE ? k : 0];
}

/* Dropout's ratio or training_mode: runtime input `idx`, or the constant `val` when idx < 0. */
static bool scalar(Tensor *const *in, int nin, int idx, double val, double *out, char *msg,
                   size_t msglen) {
    if (idx < 0) {
        *out = val;
        return true;
    }
    if (idx >= nin || in[idx]->nelem < 1)
        return fail(msg, msglen, "input %d (a Dropout scalar) is missing", idx);
    *out = tensor_value(in[idx]->dtype, in[idx]->data, 0);
    return true;
}

/* Dropout in training mode: output i is its output (DROPOUT) or its mask (MASK); the other one
 * is graph output k->pair when that is one too. */
static bool check_dropout(const Output *o, int i, Tensor *const *in, int nin, Tensor *const *want,
                          void *const *got, int nout, char *msg, size_t msglen) {
    const OutputCheck *k = &o->checks[i];
    double ratio = 0, train = 0;
    if (!scalar(in, nin, k->ratio_in, k->ratio, &ratio, msg, msglen) ||
        !scalar(in, nin, k->train_in, k->train, &train, msg, msglen))
        return false;
    if (train == 0 || ratio == 0) /* no draw decides anything */
        return compare_tensor(want[i], got[i], msg, msglen);
    int yi = k->draws == O2C_DRAWS_DROPOUT ? i : k->pair;
    int mi = k->draws == O2C_DRAWS_MASK ? i : k->pair;
    if ((yi >= 0 && yi >= nout) || (mi >= 0 && mi >= nout))
        return fail(msg, msglen, "(Dropout) output %d is missing", yi >= nout ? yi : mi);
    const Tensor *x = k->ref >= 0 && k->ref < nin ? in[k->ref] : NULL;
    int64_t n = want[i]->nelem;
    if (x && x->nelem != n)
        return fail(msg, msglen, "(Dropout) input %d has %lld elements, the output %lld", k->ref,
                    (long long)x->nelem, (long long)n);
    DType yt = yi >= 0 ? o->checks[yi].dtype : DT_UNDEFINED;
    DType mt = mi >= 0 ? o->checks[mi].dtype : DT_UNDEFINED;
    bool keep_all = ratio < 0, drop_all = !(ratio < 1);
    double scale = drop_all ? 0 : 1 / (1 - ratio), maxw = 0;
    for (int64_t e = 0; x && e < n; e++) {
        double w = tensor_value(x->dtype, x->data, e) * scale;
        if (isfinite(w) && fabs(w) > maxw)
            maxw = fabs(w);
    }
    double atol = fmax(1e-5, 1e-4 * maxw), rtol = 1e-3;
    for (int64_t e = 0; e < n; e++) {
        double m = mi >= 0 ? tensor_value(mt, got[mi], e) : NAN;
        if (mi >= 0 && m != 0 && m != 1)
            return fail(msg, msglen, "(Dropout) mask element %lld is %g: expected 0 or 1",
                        (long long)e, m);
        if ((mi >= 0 && keep_all && m != 1) || (mi >= 0 && drop_all && m != 0))
            return fail(msg, msglen, "(Dropout) mask element %lld is %g with ratio %g",
                        (long long)e, m, ratio);
        if (yi < 0)
            continue;
        double y = tensor_value(yt, got[yi], e);
        bool zero = y == 0, kept = true;
        double xs = NAN;
        if (x) {
            xs = tensor_value(x->dtype, x->data, e) * scale;
            kept = isnan(xs) ? isnan(y) : fabs(y - xs) <= atol + rtol * fabs(xs);
            if (!zero && !kept)
                return fail(msg, msglen, "(Dropout) element %lld is %.9g: expected 0 or %.9g "
                            "(x / (1 - ratio))", (long long)e, y, xs);
        }
        if ((keep_all && !kept) || (drop_all && !zero))
            return fail(msg, msglen, "(Dropout) element %lld is %.9g with ratio %g",
                        (long long)e, y, ratio);
        if (mi >= 0 && m == 0 && !zero)
            return fail(msg, msglen, "(Dropout) element %lld is %.9g where the mask drops it",
                        (long long)e, y);
        if (mi >= 0 && m == 1 && !kept)
            return fail(msg, msglen, "(Dropout) element %lld is %.9g where the mask keeps it "
                        "(want %.9g)", (long long)e, y, xs);
    }
    return true;
}

bool check_output(const Output *o, int i, Tensor *const *in, int nin, Tensor *const *want,
                  void *const *got, int nout, char *msg, size_t msglen) {
    const Tensor *w = want[i];
    const OutputCheck *k = o->checks && i < o->noutputs ? &o->checks[i] : NULL;
    /* (ONNX 1.12's backend data holds bfloat16 outputs as uint16 tensors of the same bits) */
    if (k && k->dtype != w->dtype && !(k->dtype == DT_BFLOAT16 && w->dtype == DT_UINT16))
        return fail(msg, msglen, "type %s, want %s", onnx2c_dtype_name(k->dtype),
                    onnx2c_dtype_name(w->dtype));
    if (!k || k->draws == O2C_DRAWS_NONE)
        return compare_tensor(w, got[i], msg, msglen);
    if (k->draws == O2C_DRAWS_DROPOUT || k->draws == O2C_DRAWS_MASK)
        return check_dropout(o, i, in, nin, want, got, nout, msg, msglen);
    const Tensor *ref = k->ref >= 0 && k->ref < nin ? in[k->ref] : NULL;
    if (k->ref >= 0 && !ref)
        return fail(msg, msglen, "(%s) input %d is missing", k->op, k->ref);
    if (ref && k->draws == O2C_DRAWS_BINARY && ref->nelem != w->nelem)
        return fail(msg, msglen, "(%s) input %d has %lld elements, the output %lld", k->op,
                    k->ref, (long long)ref->nelem, (long long)w->nelem);
    DType t = w->dtype;
    const void *y = got[i];
    int64_t n = w->nelem;
    switch (k->draws) {
    case O2C_DRAWS_BINARY:
        for (int64_t e = 0; e < n; e++) {
            double v = tensor_value(t, y, e);
            if (v != 0 && v != 1)
                return fail(msg, msglen, "(%s) element %lld is %.9g: expected 0 or 1", k->op,
                            (long long)e, v);
            double p = ref ? tensor_value(ref->dtype, ref->data, e) : NAN;
            if (ref && v != 0 && holds(k->zero_if, p, k->zero_at))
                return fail(msg, msglen, "(%s) element %lld is 1 where input %d is %g (%s %g: "
                            "always 0)", k->op, (long long)e, k->ref, p, cmp_text(k->zero_if),
                            k->zero_at);
            if (ref && v != 1 && holds(k->one_if, p, k->one_at))
                return fail(msg, msglen, "(%s) element %lld is 0 where input %d is %g (%s %g: "
                            "always 1)", k->op, (long long)e, k->ref, p, cmp_text(k->one_if),
                            k->one_at);
        }
        return true;
    case O2C_DRAWS_RANGE:
        for (int64_t e = 0; e < n; e++) {
            double v = tensor_value(t, y, e);
            if (!(v >= k->lo && v < k->hi))
                return fail(msg, msglen, "(%s) element %lld is %.9g: outside [%.9g, %.9g)",
                            k->op, (long long)e, v, k->lo, k->hi);
        }
        return true;
    case O2C_DRAWS_FINITE:
        for (int64_t e = 0; e < n; e++) {
            double v = tensor_value(t, y, e);
            if (!isfinite(v))
                return fail(msg, msglen, "(%s) element %lld is %g: not finite", k->op,
                            (long long)e, v);
        }
        return true;
    case O2C_DRAWS_CLASS: {
        int64_t classes = ref && ref->rank == 2 ? ref->dims[1] : k->classes;
        int64_t s = w->rank == 2 ? w->dims[1] : 0;
        for (int64_t e = 0; e < n; e++) {
            double v = tensor_value(t, y, e);
            if (!(v >= 0 && (classes < 0 || v < (double)classes)))
                return fail(msg, msglen, "(%s) element %lld is %.0f: not a class in [0, %lld)",
                            k->op, (long long)e, v, (long long)classes);
            if (!ref || ref->rank != 2 || s <= 0)
                continue;
            const int64_t row = e / s * classes;
            bool usable = false, nan = false;
            for (int64_t c = 0; c < classes; c++) {
                double l = tensor_value(ref->dtype, ref->data, row + c);
                usable |= l > -INFINITY;
                nan |= isnan(l);
            }
            if (usable && !nan && !(tensor_value(ref->dtype, ref->data, row + (int64_t)v) > -INFINITY))
                return fail(msg, msglen, "(%s) element %lld is class %.0f, whose log-probability "
                            "is -inf", k->op, (long long)e, v);
        }
        return true;
    }
    default:
        return fail(msg, msglen, "output %d: unknown check %d", i, (int)k->draws);
    }
}
