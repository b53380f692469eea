/* layout.c — op family: data movement.
 *
 * ONNX: Transpose, Concat, Split, Slice, DepthToSpace, SpaceToDepth, Gather, GatherElements, Pad,
 * ReverseSequence.
 * No arithmetic: every output element is a copy of some input element (or Pad's value).
 *
 * Most of these ops are described by "pieces": a piece copies a strided box of one input into
 * a strided box of one output,
 *     out[dbase + sum_d i_d * dstride[d]] = src[sbase + sum_d i_d * sstride[d]],  0 <= i_d < size[d]
 * with every size, base and stride a Sym.  Transpose, Slice, Depth/SpaceToDepth are one piece,
 * Concat one piece per input, Split one per output.  The same description serves twice:
 *   - folding: when the inputs' contents are known (Shape(x) gives its dims as Syms, initializers
 *     give bytes) and the pieces are constant, the outputs get known contents (kv or data).  This
 *     is how Shape -> Gather -> Unsqueeze -> Concat -> Reshape becomes a known Reshape target;
 *   - emitting: one loop nest per piece, after dropping size-1 dims and merging dims that are
 *     contiguous on both sides (a Concat along axis 1 of [N,C,H,W] becomes two loops).
 * Gather, GatherElements and Pad read data-dependent or clamped coordinates and get loops of
 * their own; Gather also folds through pieces when its indices are constants. */
#include "onnx2c.h"
#include <stdlib.h>
#include <string.h>

#define MAX_RANK 16
#define FOLD_MAX_KV 4096           /* elements: limit of ir_known_ints too */
#define FOLD_MAX_BYTES (64 << 20)  /* dense constant outputs */

typedef struct Piece {
    Value *src;
    int out; /* output index */
    int rank;
    Sym **size;
    Sym *dbase, *sbase;
    Sym **dstride, **sstride;
    /* Non-NULL: dbase is not a Sym but where the previous piece's running destination offset
     * ended, and the offset then grows by dnext (Concat of many inputs of symbolic sizes: n
     * prefix sums would be n expressions of up to n terms each). */
    Sym *dnext;
} Piece;

typedef struct Pieces {
    int n, cap;
    Piece *p;
    const void *rt; /* declared shapes: the op's runtime description (Slice, Split), or NULL */
    bool rt_data;   /* no declared shape: the output dims are data dims, set by the emitter */
} Pieces;

/* ---- helpers */

static Sym *K(Compiler *c, int64_t v) { return sym_const(c->sym, v); }

static Sym **sym_arr(Compiler *c, int n) {
    return arena_alloc(c->arena, sizeof(Sym *) * (size_t)(n > 0 ? n : 1));
}

static Piece *add_piece(Compiler *c, Pieces *ps, Value *src, int out, int rank) {
    ps->p = arena_grow(c->arena, ps->p, ps->n, &ps->cap, 4, sizeof(Piece));
    Piece *p = &ps->p[ps->n++];
    p->src = src;
    p->out = out;
    p->rank = rank;
    p->size = sym_arr(c, rank);
    p->dstride = sym_arr(c, rank);
    p->sstride = sym_arr(c, rank);
    p->dbase = p->sbase = K(c, 0);
    return p;
}

static Pieces *new_pieces(Compiler *c, Node *n) {
    Pieces *ps = arena_alloc(c->arena, sizeof *ps);
    n->priv = ps;
    return ps;
}

static void require_rank(Compiler *c, Node *n, Value *v, int rank) {
    if (v->rank > MAX_RANK)
        o2c_error(c, n, "input '%s' has rank %d; at most %d is supported", v->name, v->rank,
                  MAX_RANK);
    if (rank >= 0 && v->rank != rank)
        o2c_error(c, n, "input '%s' has rank %d, expected %d", v->name, v->rank, rank);
}

static bool all_const(Sym *const *s, int n, int64_t *out) {
    for (int i = 0; i < n; i++)
        if (!sym_get_const(s[i], &out[i]))
            return false;
    return true;
}

/* ---- folding through pieces */

/* Gives output k known contents when all its pieces read known inputs with constant geometry:
 * dense bytes when every source is dense, else (integer/bool) Syms. */
static void fold_output(Compiler *c, Node *n, const Pieces *ps, int k) {
    Value *y = n->out[k];
    if (!y || y->data || y->kv)
        return;
    int64_t len = ir_known_len(y);
    if (len < 0)
        return;
    bool dense = true, ints = dtype_is_int(y->dtype) || y->dtype == DT_BOOL;
    for (int i = 0; i < ps->n; i++) {
        const Piece *p = &ps->p[i];
        if (p->out != k)
            continue;
        int64_t tmp[MAX_RANK + 1];
        if (p->dnext || !all_const(p->size, p->rank, tmp) || !all_const(p->dstride, p->rank, tmp) ||
            !all_const(p->sstride, p->rank, tmp) || !all_const(&p->dbase, 1, tmp) ||
            !all_const(&p->sbase, 1, tmp))
            return;
        if (!p->src->data)
            dense = false;
        if (!p->src->data && !p->src->kv)
            return;
    }
    size_t esz = dtype_size(y->dtype);
    if (dense ? (uint64_t)len * esz > FOLD_MAX_BYTES : (!ints || len > FOLD_MAX_KV))
        return;
    for (int i = 0; !dense && i < ps->n; i++)
        if (ps->p[i].out == k && !ir_known_ints(c, ps->p[i].src))
            return;
    unsigned char *bytes = dense ? arena_alloc(c->arena, (size_t)len * esz + 1) : NULL;
    Sym **kv = dense ? NULL : sym_arr(c, (int)len);
    for (int i = 0; i < ps->n; i++) {
        const Piece *p = &ps->p[i];
        if (p->out != k)
            continue;
        int64_t size[MAX_RANK + 1], ds[MAX_RANK + 1], ss[MAX_RANK + 1], db, sb, idx[MAX_RANK + 1];
        all_const(p->size, p->rank, size);
        all_const(p->dstride, p->rank, ds);
        all_const(p->sstride, p->rank, ss);
        sym_get_const(p->dbase, &db);
        sym_get_const(p->sbase, &sb);
        int64_t total = 1, slen = ir_known_len(p->src);
        for (int d = 0; d < p->rank; d++) {
            total *= size[d];
            idx[d] = 0;
        }
        for (int64_t t = 0; t < total; t++) {
            int64_t di = db, si = sb;
            for (int d = 0; d < p->rank; d++)
                di += idx[d] * ds[d], si += idx[d] * ss[d];
            O2C_ASSERT(c, di >= 0 && di < len && si >= 0 && si < slen);
            if (dense)
                memcpy(bytes + (size_t)di * esz, (const unsigned char *)p->src->data + (size_t)si * esz,
                       esz);
            else
                kv[di] = p->src->kv[si];
            for (int d = p->rank - 1; d >= 0; d--) {
                if (++idx[d] < size[d])
                    break;
                idx[d] = 0;
            }
        }
    }
    if (dense)
        y->data = bytes;
    else
        y->kv = kv;
}

static void fold_pieces(Compiler *c, Node *n, const Pieces *ps) {
    for (int k = 0; k < n->nout; k++)
        fold_output(c, n, ps, k);
}

/* ---- emitting pieces */

/* "a * b" without the trivial factors. */
static const char *term(Emit *e, const char *idx, Sym *stride) {
    int64_t v;
    if (sym_get_const(stride, &v) && v == 1)
        return idx;
    return arena_printf(emit_arena(e), "%s * %s", idx, emit_sym(e, stride));
}

static void emit_piece(Compiler *c, Emit *e, const Piece *p, Value *dst) {
    Arena *a = emit_arena(e);
    Sym *one = K(c, 1);
    int64_t v;
    /* drop size-1 dims, then merge dims contiguous on both sides (inner first) */
    Sym *size[MAX_RANK + 1], *ds[MAX_RANK + 1], *ss[MAX_RANK + 1];
    int r = 0;
    for (int d = 0; d < p->rank; d++) {
        if (sym_get_const(p->size[d], &v) && v == 0)
            return;
        if (p->size[d] == one)
            continue;
        if (r > 0 && ds[r - 1] == sym_mul(c->sym, p->dstride[d], p->size[d]) &&
            ss[r - 1] == sym_mul(c->sym, p->sstride[d], p->size[d])) {
            size[r - 1] = sym_mul(c->sym, size[r - 1], p->size[d]);
            ds[r - 1] = p->dstride[d];
            ss[r - 1] = p->sstride[d];
            continue;
        }
        size[r] = p->size[d];
        ds[r] = p->dstride[d];
        ss[r] = p->sstride[d];
        r++;
    }
    const char *y = emit_ptr(e, dst), *x = emit_ptr(e, p->src);
    /* the innermost dim contiguous on both sides becomes a memcpy */
    bool mc = r > 0 && ds[r - 1] == one && ss[r - 1] == one;
    int loops = mc ? r - 1 : r;
    Buf di, si;
    buf_init_in(&di, c->arena);
    buf_init_in(&si, c->arena);
    if (p->dnext)
        buf_puts(&di, "off");
    else if (p->dbase != K(c, 0))
        buf_puts(&di, emit_sym(e, p->dbase));
    if (p->sbase != K(c, 0))
        buf_puts(&si, emit_sym(e, p->sbase));
    /* a transpose (the innermost dim contiguous in the destination only, an outer one dt
     * contiguous in the source only): those two dims in tiles of 16 x 16, each tile reading
     * and writing 16 whole cache lines of floats (element by element, one of the sides took a
     * line per element: a transformer's [128, 8, 32] -> [8, 32, 128] 29 us) */
    int dt = -1;
    if (!mc && r >= 2 && ds[r - 1] == one)
        for (int d = 0; d < r - 1; d++)
            if (ss[d] == one && ds[d] != one)
                dt = d;
    int opened = 0;
    for (int d = 0; d < loops; d++) {
        if (dt >= 0 && (d == dt || d == r - 1))
            continue;
        const char *i = arena_printf(a, "i%d", d);
        emit_line(e, "for (int64_t %s = 0; %s < %s; %s++) {", i, i, emit_sym(e, size[d]), i);
        emit_indent(e, 1);
        opened++;
        buf_printf(&di, "%s%s", di.len ? " + " : "", term(e, i, ds[d]));
        buf_printf(&si, "%s%s", si.len ? " + " : "", term(e, i, ss[d]));
    }
    if (dt >= 0) {
        const int td[2] = {dt, r - 1};
        for (int k = 0; k < 2; k++) {
            emit_line(e, "for (int64_t t%d = 0; t%d < %s; t%d += 16) {", td[k], td[k],
                      emit_sym(e, size[td[k]]), td[k]);
            emit_indent(e, 1);
        }
        for (int k = 0; k < 2; k++) {
            const char *i = arena_printf(a, "i%d", td[k]), *sz = emit_sym(e, size[td[k]]);
            emit_line(e, "for (int64_t %s = t%d; %s < (t%d + 16 < %s ? t%d + 16 : %s); %s++) {",
                      i, td[k], i, td[k], sz, td[k], sz, i);
            emit_indent(e, 1);
            buf_printf(&di, "%s%s", di.len ? " + " : "", term(e, i, ds[td[k]]));
            buf_printf(&si, "%s%s", si.len ? " + " : "", term(e, i, ss[td[k]]));
        }
        opened += 4;
    }
    if (mc)
        emit_line(e, "memcpy(%s + %s, %s + %s, (size_t)%s * sizeof(%s));", y, di.len ? di.data : "0",
                  x, si.len ? si.data : "0", emit_sym(e, size[r - 1]), dtype_ctype(dst->dtype));
    else
        emit_line(e, "%s[%s] = %s[%s];", y, di.len ? di.data : "0", x, si.len ? si.data : "0");
    for (int d = 0; d < opened; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    buf_free(&di);
    buf_free(&si);
}

Sym *concat_block_at(Compiler *c, const Node *n, int k) {
    const Pieces *ps = n->priv;
    (void)c;
    if (!ps || k < 0 || k >= ps->n || ps->p[k].dnext || ps->p[k].src != n->in[k] ||
        ps->p[k].sbase != K(c, 0))
        return NULL;
    /* dense in the destination too: each dim of more than one element has the source's
     * stride there */
    const Piece *p = &ps->p[k];
    for (int d = 0; d < p->rank; d++)
        if (p->size[d] != K(c, 1) && p->dstride[d] != p->sstride[d])
            return NULL;
    return p->dbase;
}

void emit_pieces(Compiler *c, Emit *e, Node *n) {
    const Pieces *ps = n->priv;
    bool running = false;
    for (int i = 0; i < ps->n; i++) {
        Value *y = n->out[ps->p[i].out];
        if (y->data || y->kv) /* folded: written from its known contents */
            continue;
        if (ps->p[i].src && ps->p[i].src->within == y) {
            emit_line(e, "/* %s: written in place by its producer */", ps->p[i].src->cname);
            continue;
        }
        if (ps->p[i].dnext && !running) {
            emit_line(e, "int64_t off = 0;");
            running = true;
        }
        emit_piece(c, e, &ps->p[i], y);
        if (ps->p[i].dnext)
            emit_line(e, "off += %s;", emit_sym(e, ps->p[i].dnext));
    }
    if (running)
        emit_line(e, "(void)off;");
}

/* ---- Transpose: y = x permuted, y.shape[i] = x.shape[perm[i]] (default perm reverses) */

void infer_transpose(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    require_rank(c, n, x, -1);
    int r = x->rank;
    const int64_t *perm_a;
    int np = attr_ints(c, n, "perm", &perm_a);
    int perm[MAX_RANK];
    bool seen[MAX_RANK] = {false};
    if (np >= 0 && np != r)
        o2c_error(c, n, "perm has %d entries but the input has rank %d", np, r);
    for (int i = 0; i < r; i++) {
        int64_t p = np >= 0 ? perm_a[i] : r - 1 - i;
        if (p < 0)
            p += r;
        if (p < 0 || p >= r || seen[p])
            o2c_error(c, n, "perm is not a permutation of 0..%d", r - 1);
        seen[p] = true;
        perm[i] = (int)p;
    }
    Sym **shape = sym_arr(c, r), **xs = ir_strides(c, r, x->shape);
    for (int i = 0; i < r; i++)
        shape[i] = x->shape[perm[i]];
    ir_set_shape(c, n->out[0], x->dtype, r, shape);
    Pieces *ps = new_pieces(c, n);
    Piece *p = add_piece(c, ps, x, 0, r);
    Sym **ys = ir_strides(c, r, shape);
    for (int i = 0; i < r; i++) {
        p->size[i] = shape[i];
        p->dstride[i] = ys[i];
        p->sstride[i] = xs[perm[i]];
    }
    fold_pieces(c, n, ps);
}

/* ---- Concat: y = inputs joined along axis; y.shape[axis] = sum of the inputs' */

void infer_concat(Compiler *c, Node *n) {
    Value *x0 = infer_in(c, n, 0);
    require_rank(c, n, x0, -1);
    int r = x0->rank;
    if (r == 0)
        o2c_error(c, n, "inputs are scalars: Concat needs rank >= 1");
    if (n->opset >= 4 && !node_attr(n, "axis"))
        o2c_error(c, n, "attribute 'axis' is required");
    int axis = infer_axis(c, n, attr_int(c, n, "axis", 1), r);
    Sym **shape = sym_arr(c, r);
    for (int d = 0; d < r; d++)
        shape[d] = x0->shape[d];
    Sym *total, **sizes = sym_arr(c, n->nin);
    int nsym = 0;
    for (int k = 0; k < n->nin; k++) {
        Value *x = infer_in(c, n, k);
        if (x->dtype != x0->dtype)
            o2c_error(c, n, "input %d has type %s but input 0 has type %s", k, dtype_name(x->dtype),
                      dtype_name(x0->dtype));
        if (x->rank != r)
            o2c_error(c, n, "input %d has rank %d but input 0 has rank %d", k, x->rank, r);
        for (int d = 0; d < r; d++) {
            if (d == axis || x->shape[d] == shape[d])
                continue;
            int64_t a, b;
            if (sym_get_const(x->shape[d], &a) && sym_get_const(shape[d], &b))
                o2c_error(c, n, "input %d has dimension %d = %lld but input 0 has %lld (axis is %d)",
                          k, d, (long long)a, (long long)b, axis);
            ir_constrain(c, n, CK_EQ, x->shape[d], shape[d], "Concat input %d dimension %d must match",
                         k, d);
            if (sym_is_const(x->shape[d]))
                shape[d] = x->shape[d];
        }
        sizes[k] = x->shape[axis];
        nsym += !sym_is_const(sizes[k]);
    }
    total = sym_sum(c->sym, n->nin, sizes);
    shape[axis] = total;
    ir_set_shape(c, n->out[0], x0->dtype, r, shape);
    Pieces *ps = new_pieces(c, n);
    Sym **ys = ir_strides(c, r, shape), *off = K(c, 0);
    /* many symbolic sizes: the destination offset runs in the generated code */
    bool running = nsym > 8;
    for (int k = 0; k < n->nin; k++) {
        Value *x = n->in[k];
        Piece *p = add_piece(c, ps, x, 0, r);
        for (int d = 0; d < r; d++)
            p->size[d] = d == axis ? x->shape[axis] : shape[d];
        Sym **xs = ir_strides(c, r, p->size);
        for (int d = 0; d < r; d++) {
            p->dstride[d] = ys[d];
            p->sstride[d] = xs[d];
        }
        if (running) {
            p->dnext = sym_mul(c->sym, x->shape[axis], ys[axis]);
            continue;
        }
        p->dbase = sym_mul(c->sym, off, ys[axis]);
        off = sym_add(c->sym, off, x->shape[axis]);
    }
    fold_pieces(c, n, ps);
}

/* ---- Split: outputs are consecutive slices along axis.  Sizes: attribute `split` (< 13),
 * input 1 (13+), else equal parts (opset 18 `num_outputs`: ceil(dim / n), the last smaller). */

void infer_split(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0);
    require_rank(c, n, x, -1);
    int r = x->rank;
    if (r == 0)
        o2c_error(c, n, "input is a scalar: Split needs rank >= 1");
    int axis = infer_axis(c, n, attr_int(c, n, "axis", 0), r);
    n->op_i[0] = axis;
    int nout = n->nout;
    Sym *dim = x->shape[axis];
    Sym **sizes = sym_arr(c, nout);
    Value *sv = n->opset >= 13 ? node_in(n, 1) : NULL;
    const int64_t *sa;
    int nsa = n->opset < 13 ? attr_ints(c, n, "split", &sa) : -1;
    if (sv || nsa >= 0) {
        if (sv && infer_runtime_ints(c, sv)) {
            /* runtime sizes: each output's declared dim, checked by emit_split */
            int64_t len = infer_implied_len(c, n, sv, nout, "split");
            if (len != nout)
                o2c_error(c, n, "split has %lld entries but the node has %d outputs",
                          (long long)len, nout);
            bool data = !infer_declared_shape(c, n, n->out[0], x->dtype);
            for (int i = 0; i < nout; i++) {
                if (!n->out[i])
                    o2c_error(c, n, "split '%s' must be known at compile time when an output "
                              "is omitted", sv->name);
                if (data) { /* no declared shapes: the sizes are data dims, each at most the dim */
                    sizes[i] = ir_data_dim(c, n, i, axis, dim);
                    continue;
                }
                infer_declared_out(c, n, sv, "split", n->out[i], x->dtype, r);
                for (int d = 0; d < r; d++)
                    if (d != axis)
                        infer_declared_agree(c, n, n->out[i], d, x->shape[d]);
                sizes[i] = n->out[i]->shape[axis];
            }
        } else if (sv) {
            int64_t len;
            Sym **k = infer_need_ints(c, n, sv, "split", &len, false);
            if (len != nout)
                o2c_error(c, n, "split has %lld entries but the node has %d outputs", (long long)len,
                          nout);
            for (int i = 0; i < nout; i++)
                sizes[i] = k[i];
        } else {
            if (nsa != nout)
                o2c_error(c, n, "split has %d entries but the node has %d outputs", nsa, nout);
            for (int i = 0; i < nout; i++)
                sizes[i] = K(c, sa[i]);
        }
        Sym *sum = K(c, 0);
        for (int i = 0; i < nout; i++) {
            int64_t v;
            if (sym_get_const(sizes[i], &v) && v < 0)
                o2c_error(c, n, "split entry %d is negative (%lld)", i, (long long)v);
            sum = sym_add(c->sym, sum, sizes[i]);
        }
        int64_t a, b;
        if (sym_get_const(sum, &a) && sym_get_const(dim, &b) && a != b)
            o2c_error(c, n, "split sizes add up to %lld but dimension %d is %lld", (long long)a, axis,
                      (long long)b);
        if (sum != dim)
            ir_constrain(c, n, CK_EQ, sum, dim, "Split sizes must add up to dimension %d", axis);
    } else if (node_attr(n, "num_outputs")) {
        int64_t no = attr_int(c, n, "num_outputs", 0);
        if (no != nout)
            o2c_error(c, n, "num_outputs is %lld but the node has %d outputs", (long long)no, nout);
        Sym *chunk = sym_ceildiv(c->sym, dim, K(c, nout));
        for (int i = 0; i < nout; i++)
            sizes[i] = i < nout - 1 ? chunk
                                    : sym_sub(c->sym, dim, sym_mul(c->sym, chunk, K(c, nout - 1)));
    } else {
        int64_t b;
        if (sym_get_const(dim, &b) && b % nout)
            o2c_error(c, n, "dimension %d (%lld) cannot be split into %d equal parts", axis,
                      (long long)b, nout);
        ir_constrain(c, n, CK_DIVIDES, K(c, nout), dim, "Split dimension %d must divide into %d parts", axis,
                     nout);
        for (int i = 0; i < nout; i++)
            sizes[i] = sym_floordiv(c->sym, dim, K(c, nout));
    }
    Pieces *ps = new_pieces(c, n);
    Sym **xs = ir_strides(c, r, x->shape), *off = K(c, 0);
    for (int k = 0; k < nout; k++) {
        Value *y = n->out[k];
        Sym **shape = sym_arr(c, r);
        for (int d = 0; d < r; d++)
            shape[d] = d == axis ? sizes[k] : x->shape[d];
        if (y) {
            ir_set_shape(c, y, x->dtype, r, shape);
            Piece *p = add_piece(c, ps, x, k, r);
            Sym **ys = ir_strides(c, r, shape);
            for (int d = 0; d < r; d++) {
                p->size[d] = shape[d];
                p->dstride[d] = ys[d];
                p->sstride[d] = xs[d];
            }
            p->sbase = sym_mul(c->sym, off, xs[axis]);
        }
        off = sym_add(c->sym, off, sizes[k]);
    }
    if (sv && infer_runtime_ints(c, sv)) {
        ps->rt = sv; /* no folding: the sizes are checked (or, data dims, set) at run time */
        ps->rt_data = n->out[0]->shape[axis]->kind == SYM_DIM &&
                      n->out[0]->shape[axis]->dim >= c->g->nin_dims;
    } else
        fold_pieces(c, n, ps);
}


void emit_split(Compiler *c, Emit *e, Node *n) {
    const Pieces *ps = n->priv;
    if (ps->rt && ps->rt_data) { /* the sizes are data dims: each >= 0, adding up to the dim */
        Value *sv = (Value *)ps->rt, *x = n->in[0];
        int axis = (int)n->op_i[0];
        emit_line(e, "int64_t sum = 0;");
        emit_line(e, "for (int i = 0; i < %d; i++) {", n->nout);
        emit_line(e, "    if ((int64_t)%s[i] < 0 || (int64_t)%s[i] > %s - sum)", emit_ptr(e, sv),
                  emit_ptr(e, sv), emit_sym(e, x->shape[axis]));
        emit_line(e, "        return %d;", O2C_RUN_EDATA);
        emit_line(e, "    sum += (int64_t)%s[i];", emit_ptr(e, sv));
        emit_line(e, "}");
        emit_line(e, "if (sum != %s)", emit_sym(e, x->shape[axis]));
        emit_line(e, "    return %d;", O2C_RUN_EDATA);
        for (int i = 0; i < n->nout; i++)
            emit_set_data_dim(e, n->out[i]->shape[axis],
                              arena_printf(c->arena, "(int64_t)%s[%d]", emit_ptr(e, sv), i));
    } else if (ps->rt) {
        Value *sv = (Value *)ps->rt;
        int axis = (int)n->op_i[0];
        for (int i = 0; i < n->nout; i++) {
            emit_line(e, "if ((int64_t)%s[%d] != %s)", emit_ptr(e, sv), i,
                      emit_sym(e, n->out[i]->shape[axis]));
            emit_line(e, "    return %d;", O2C_RUN_EDATA);
        }
    }
    emit_pieces(c, e, n);
}

/* ---- Slice: y = x[starts:ends:steps] on the given axes (numpy semantics).
 * Opset 1: attributes starts, ends, axes; opset 10+: inputs starts, ends, axes, steps.
 * Clamping (ONNX): a negative start/end adds the dim; then for step > 0 start and end are
 * clamped to [0, dim], for step < 0 start to [0, dim-1] and end to [-1, dim-1].
 * Length: max(0, ceil((end - start) / step)).  With a symbolic dim the clamped bounds are
 * Syms, exact for every dim >= 0 (slice_axis). */

/* v, negative counting from the end of dim: v + dim when v < 0.  For a symbolic v of unknown
 * sign, [v < 0] = min(max(-v, 0), 1). */
static Sym *from_end(SymCtx *s, Sym *v, Sym *dim) {
    int64_t lo, hi;
    sym_range(v, &lo, &hi);
    if (lo >= 0)
        return v;
    if (hi < 0)
        return sym_add(s, v, dim);
    Sym *neg = sym_min(s, sym_max(s, sym_neg(s, v), sym_const(s, 0)), sym_const(s, 1));
    return sym_add(s, v, sym_mul(s, dim, neg));
}

Sym *slice_axis(SymCtx *s, Sym *dim, Sym *start, Sym *end, int64_t step, Sym **begin) {
    Sym *zero = sym_const(s, 0), *last = sym_sub(s, dim, sym_const(s, 1));
    Sym *b = from_end(s, start, dim), *e = from_end(s, end, dim);
    if (step > 0) { /* [0, dim]: the clamps commute */
        *begin = sym_max(s, sym_min(s, b, dim), zero);
        e = sym_max(s, sym_min(s, e, dim), zero);
        return sym_ceildiv(s, sym_max(s, zero, sym_sub(s, e, *begin)), sym_const(s, step));
    }
    /* the start to [0, dim - 1], the upper clamp last: -1 when dim is 0, so the length is 0;
     * a step of INT64_MIN gives the lengths of -INT64_MAX and is never negated */
    *begin = sym_min(s, sym_max(s, b, zero), last);
    e = sym_max(s, sym_min(s, e, last), sym_const(s, -1));
    int64_t mag = step == INT64_MIN ? INT64_MAX : -step;
    return sym_ceildiv(s, sym_max(s, zero, sym_sub(s, *begin, e)), sym_const(s, mag));
}

void infer_slice(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x;
    Sym **starts, **ends;
    int64_t nst, nen, nax = -1, nstep = -1, *axes_v = NULL, *steps_v = NULL;
    if (n->opset < 10) {
        infer_require_inputs(c, n, 1, 1);
        x = infer_in(c, n, 0);
        const int64_t *a = NULL;
        nst = attr_ints(c, n, "starts", &a);
        if (nst < 0)
            o2c_error(c, n, "attribute 'starts' is required");
        starts = sym_arr(c, (int)nst);
        for (int i = 0; i < nst; i++)
            starts[i] = K(c, a[i]);
        nen = attr_ints(c, n, "ends", &a);
        if (nen < 0)
            o2c_error(c, n, "attribute 'ends' is required");
        ends = sym_arr(c, (int)nen);
        for (int i = 0; i < nen; i++)
            ends[i] = K(c, a[i]);
        nax = attr_ints(c, n, "axes", &a);
        axes_v = (int64_t *)a;
    } else {
        infer_require_inputs(c, n, 3, 5);
        x = infer_in(c, n, 0);
        bool rt = false;
        for (int i = 1; i < 5; i++)
            if (node_in(n, i) && infer_runtime_ints(c, n->in[i]))
                rt = true;
        if (rt) {
            /* runtime starts/ends/axes/steps: the declared shape, checked by emit_slice */
            require_rank(c, n, x, -1);
            /* the entry count may be symbolic: emit_slice loops over it at run time */
            Sym *cnt = NULL;
            for (int i = 1; i < 5; i++) {
                Value *v = node_in(n, i);
                if (!v)
                    continue;
                if (!dtype_is_int(v->dtype) || v->rank > 1)
                    o2c_error(c, n, "starts, ends, axes and steps must be 1-D integer tensors");
                if (cnt)
                    ir_constrain(c, n, CK_EQ, cnt, ir_numel(c, v),
                                 "starts, ends, axes and steps must have as many entries");
                else
                    cnt = ir_numel(c, v);
            }
            ir_constrain(c, n, CK_LE, cnt, K(c, x->rank),
                         "starts must have at most as many entries as the input's rank");
            /* without a declared shape each dim is a data dim, at most the input's */
            bool decl = infer_declared_or_data(c, n, 0, x->dtype, x->rank, x->shape);
            Pieces *ps = new_pieces(c, n);
            ps->rt = n;
            ps->rt_data = !decl;
            return;
        }
        starts = infer_need_ints(c, n, n->in[1], "starts", &nst, false);
        ends = infer_need_ints(c, n, n->in[2], "ends", &nen, false);
        if (node_in(n, 3))
            axes_v = infer_need_const_ints(c, n, n->in[3], "axes", &nax, false);
        if (node_in(n, 4))
            steps_v = infer_need_const_ints(c, n, n->in[4], "steps", &nstep, false);
    }
    require_rank(c, n, x, -1);
    int r = x->rank;
    if (nst != nen)
        o2c_error(c, n, "starts has %lld entries but ends has %lld", (long long)nst, (long long)nen);
    if (nax >= 0 && nax != nst)
        o2c_error(c, n, "axes has %lld entries but starts has %lld", (long long)nax, (long long)nst);
    if (nstep >= 0 && nstep != nst)
        o2c_error(c, n, "steps has %lld entries but starts has %lld", (long long)nstep,
                  (long long)nst);
    if (nst > r)
        o2c_error(c, n, "starts has %lld entries but the input has rank %d", (long long)nst, r);
    Sym *start[MAX_RANK], *step[MAX_RANK];
    Sym **shape = sym_arr(c, r);
    bool done[MAX_RANK] = {false};
    for (int d = 0; d < r; d++) {
        start[d] = K(c, 0);
        step[d] = K(c, 1);
        shape[d] = x->shape[d];
    }
    for (int i = 0; i < nst; i++) {
        int axis = infer_axis(c, n, nax >= 0 ? axes_v[i] : i, r);
        if (done[axis])
            o2c_error(c, n, "axis %d appears twice in axes", axis);
        done[axis] = true;
        int64_t st = steps_v ? steps_v[i] : 1;
        if (st == 0)
            o2c_error(c, n, "step %d is zero", i);
        Sym *b, *len = slice_axis(s, x->shape[axis], starts[i], ends[i], st, &b);
        int64_t lo, hi;
        sym_range(len, &lo, &hi);
        /* at most one element: the step never moves (a huge step times the stride would not
         * fit); an empty reversed axis starts at -1: read from 0 */
        start[axis] = st < 0 ? sym_max(s, b, K(c, 0)) : b;
        step[axis] = K(c, hi <= 1 ? 1 : st);
        shape[axis] = len;
    }
    ir_set_shape(c, n->out[0], x->dtype, r, shape);
    Pieces *ps = new_pieces(c, n);
    Piece *p = add_piece(c, ps, x, 0, r);
    Sym **xs = ir_strides(c, r, x->shape), **ys = ir_strides(c, r, shape);
    for (int d = 0; d < r; d++) {
        p->size[d] = shape[d];
        p->dstride[d] = ys[d];
        p->sstride[d] = sym_mul(s, step[d], xs[d]);
        p->sbase = sym_add(s, p->sbase, sym_mul(s, start[d], xs[d]));
    }
    fold_pieces(c, n, ps);
}

/* Slice with runtime starts/ends/axes/steps: computes the clamped bounds as infer_slice does,
 * checks the lengths against the declared shape, then copies with runtime offsets. */
void emit_slice(Compiler *c, Emit *e, Node *n) {
    const Pieces *ps = n->priv;
    if (!ps->rt) {
        emit_pieces(c, e, n);
        return;
    }
    Value *x = n->in[0], *y = n->out[0], *ax = node_in(n, 3), *sp = node_in(n, 4);
    int r = x->rank;
    const char *cnt = emit_sym(e, ir_numel(c, n->in[1]));
    const char *xd = emit_sym_array(e, "xd", r, x->shape);
    const char *yd = ps->rt_data ? NULL : emit_sym_array(e, "yd", r, y->shape);
    const char *xs = emit_sym_array(e, "xs", r, ir_strides(c, r, x->shape));
    int rr = r > 0 ? r : 1;
    emit_line(e, "int64_t st[%d], sp[%d], ln[%d];", rr, rr, rr);
    emit_line(e, "int mk[%d] = {0};", rr);
    emit_line(e, "for (int64_t d = 0; d < %d; d++) {", r);
    emit_line(e, "    st[d] = 0;");
    emit_line(e, "    sp[d] = 1;");
    emit_line(e, "    ln[d] = %s[d];", xd);
    emit_line(e, "}");
    emit_line(e, "for (int64_t i = 0; i < %s; i++) {", cnt);
    emit_indent(e, 1);
    emit_line(e, "int64_t a = %s;", ax ? arena_printf(c->arena, "(int64_t)%s[i]", emit_ptr(e, ax)) : "i");
    emit_line(e, "const int64_t stp = %s;", sp ? arena_printf(c->arena, "(int64_t)%s[i]", emit_ptr(e, sp)) : "1");
    emit_line(e, "if (a < 0)");
    emit_line(e, "    a += %d;", r);
    emit_line(e, "if (a < 0 || a >= %d || mk[a] || stp == 0)", r);
    emit_line(e, "    return %d;", O2C_RUN_EDATA);
    emit_line(e, "mk[a] = 1;");
    emit_line(e, "int64_t b = (int64_t)%s[i], en = (int64_t)%s[i];", emit_ptr(e, n->in[1]),
              emit_ptr(e, n->in[2]));
    emit_line(e, "const int64_t dim = %s[a];", xd);
    emit_line(e, "if (b < 0)");
    emit_line(e, "    b += dim;");
    emit_line(e, "if (en < 0)");
    emit_line(e, "    en += dim;");
    /* ceil(span / |step|) as (span - 1) / |step| + 1: no overflow for any int64 step (the
     * magnitude of INT64_MIN in uint64_t) */
    emit_line(e, "if (stp > 0) {");
    emit_line(e, "    b = b < 0 ? 0 : b > dim ? dim : b;");
    emit_line(e, "    en = en < 0 ? 0 : en > dim ? dim : en;");
    emit_line(e, "    ln[a] = en > b ? (en - b - 1) / stp + 1 : 0;");
    emit_line(e, "} else {");
    emit_line(e, "    b = b < 0 ? 0 : b;"); /* then the upper clamp: -1 on an empty axis */
    emit_line(e, "    b = b > dim - 1 ? dim - 1 : b;");
    emit_line(e, "    en = en < -1 ? -1 : en > dim - 1 ? dim - 1 : en;");
    emit_line(e, "    ln[a] = b > en ? (int64_t)((uint64_t)(b - en - 1) / ((uint64_t)0 - (uint64_t)stp)) "
                 "+ 1 : 0;");
    emit_line(e, "}");
    emit_line(e, "st[a] = b;");
    emit_line(e, "sp[a] = stp;");
    emit_indent(e, -1);
    emit_line(e, "}");
    if (ps->rt_data) /* the output's dims are data dims: these lengths */
        for (int d = 0; d < r; d++)
            emit_set_data_dim(e, y->shape[d], arena_printf(c->arena, "ln[%d]", d));
    else {
        emit_line(e, "for (int64_t d = 0; d < %d; d++)", r);
        emit_line(e, "    if (ln[d] != %s[d])", yd);
        emit_line(e, "        return %d;", O2C_RUN_EDATA);
    }
    /* the copy: y in order, x at st + i * sp per axis (ln: y's dims) */
    const char *Y = emit_ptr(e, y), *X = emit_ptr(e, x);
    emit_line(e, "int64_t o = 0;");
    Buf ix;
    buf_init_in(&ix, c->arena);
    for (int d = 0; d < r; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < ln[%d]; i%d++) {", d, d, d, d);
        emit_indent(e, 1);
        buf_printf(&ix, "%s(st[%d] + i%d * sp[%d]) * %s[%d]", d ? " + " : "", d, d, d, xs, d);
    }
    emit_line(e, "%s[o++] = %s[%s];", Y, X, r ? ix.data : "0");
    for (int d = 0; d < r; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    buf_free(&ix);
}

/* ---- DepthToSpace / SpaceToDepth (blocksize b), x is [N, C, H, W].
 * DepthToSpace DCR: reshape x to [N, b, b, C/b², H, W], transpose (0,3,4,1,5,2);
 *              CRD: reshape x to [N, C/b², b, b, H, W], transpose (0,1,4,2,5,3);
 *   y is [N, C/b², H*b, W*b].
 * SpaceToDepth: reshape x to [N, C, H/b, b, W/b, b], transpose (0,3,5,1,2,4);
 *   y is [N, C*b², H/b, W/b].
 * One piece each: y seen as the 6-D transposed tensor, x read with the reshaped strides. */

void infer_depth_space(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    Value *x = infer_in(c, n, 0);
    require_rank(c, n, x, 4);
    int64_t b = attr_int(c, n, "blocksize", 0);
    if (b <= 0 || b > ATTR_SIZE_MAX)
        o2c_error(c, n, "attribute 'blocksize' = %lld: must be in [1, %lld]", (long long)b,
                  (long long)ATTR_SIZE_MAX);
    bool d2s = n->op->variant == OPV_D2S;
    const char *mode = d2s ? attr_str(c, n, "mode", "DCR") : "";
    bool crd = d2s && !strcmp(mode, "CRD");
    if (d2s && !crd && strcmp(mode, "DCR"))
        o2c_error(c, n, "mode '%s' is not supported (DCR or CRD)", mode);
    Sym *N = x->shape[0], *C = x->shape[1], *H = x->shape[2], *W = x->shape[3], *B = K(c, b);
    Sym *BB = K(c, b * b), *HW = sym_mul(s, H, W);
    Sym *shape[4], *sz[6], *ss[6];
    Pieces *ps = new_pieces(c, n);
    Piece *p = add_piece(c, ps, x, 0, 6);
    if (d2s) {
        int64_t cv;
        if (sym_get_const(C, &cv) && cv % (b * b))
            o2c_error(c, n, "channels (%lld) are not divisible by blocksize² (%lld)", (long long)cv,
                      (long long)(b * b));
        ir_constrain(c, n, CK_DIVIDES, BB, C, "DepthToSpace channels must be divisible by blocksize^2");
        Sym *C2 = sym_floordiv(s, C, BB);
        shape[0] = N, shape[1] = C2, shape[2] = sym_mul(s, H, B), shape[3] = sym_mul(s, W, B);
        /* y as [N, C2, H, b1, W, b2] */
        Sym *t[6] = {N, C2, H, B, W, B};
        memcpy(sz, t, sizeof t);
        ss[0] = sym_mul(s, C, HW);
        ss[2] = W;
        ss[4] = K(c, 1);
        if (crd) { /* x as [N, C2, b1, b2, H, W] */
            ss[1] = sym_mul(s, BB, HW);
            ss[3] = sym_mul(s, B, HW);
            ss[5] = HW;
        } else { /* x as [N, b1, b2, C2, H, W] */
            ss[1] = HW;
            ss[3] = sym_mul(s, sym_mul(s, B, C2), HW);
            ss[5] = sym_mul(s, C2, HW);
        }
    } else {
        int64_t hv, wv;
        if ((sym_get_const(H, &hv) && hv % b) || (sym_get_const(W, &wv) && wv % b))
            o2c_error(c, n, "height and width must be divisible by blocksize (%lld)", (long long)b);
        ir_constrain(c, n, CK_DIVIDES, B, H, "SpaceToDepth height must be divisible by blocksize");
        ir_constrain(c, n, CK_DIVIDES, B, W, "SpaceToDepth width must be divisible by blocksize");
        Sym *H2 = sym_floordiv(s, H, B), *W2 = sym_floordiv(s, W, B);
        shape[0] = N, shape[1] = sym_mul(s, C, BB), shape[2] = H2, shape[3] = W2;
        /* y as [N, b1, b2, C, H2, W2]; x as [N, C, H2, b1, W2, b2] */
        Sym *t[6] = {N, B, B, C, H2, W2};
        memcpy(sz, t, sizeof t);
        ss[0] = sym_mul(s, C, HW);
        ss[1] = W;
        ss[2] = K(c, 1);
        ss[3] = HW;
        ss[4] = sym_mul(s, B, W);
        ss[5] = B;
    }
    ir_set_shape(c, n->out[0], x->dtype, 4, shape);
    Sym **ys = ir_strides(c, 6, sz);
    for (int d = 0; d < 6; d++) {
        p->size[d] = sz[d];
        p->dstride[d] = ys[d];
        p->sstride[d] = ss[d];
    }
    fold_pieces(c, n, ps);
}

/* ---- Gather: y[o, j..., i] = x[o, idx[j...], i] along axis (negative indices add the dim).
 * y.shape = x.shape[:axis] + idx.shape + x.shape[axis+1:].  Folds (Gather(Shape(x), 0) gives
 * {dim}) when the indices are constants; otherwise one loop over [outer, nidx, inner].  ONNX
 * calls an index outside [-dim, dim) an error: NAME_run returns O2C_RUN_EINDEX before writing
 * (emit_index_check; a dim of 0 has no valid index). */

typedef struct GatherPriv {
    int axis;
    Sym *outer, *nidx, *inner, *dim;
} GatherPriv;

static void check_indices_type(Compiler *c, Node *n, Value *idx) {
    if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
        o2c_error(c, n, "indices must be int32 or int64, got %s", dtype_name(idx->dtype));
}

/* Returns O2C_RUN_EINDEX from NAME_run, before the node writes anything, when one of the
 * indices lies outside [-dim, dim) (templates/index_check.c). */
static void emit_index_check(Compiler *c, Emit *e, Value *idx, Sym *dim) {
    const char *sfx = emit_template(e, "index_check", idx->dtype);
    emit_line(e, "if (index_out_%s(%s, %s, %s))", sfx, emit_ptr(e, idx),
              emit_sym(e, ir_numel(c, idx)), emit_sym(e, dim));
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}

void infer_gather(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *idx = infer_in(c, n, 1);
    require_rank(c, n, x, -1);
    require_rank(c, n, idx, -1);
    check_indices_type(c, n, idx);
    if (x->rank == 0)
        o2c_error(c, n, "data is a scalar: Gather needs rank >= 1");
    int axis = infer_axis(c, n, attr_int(c, n, "axis", 0), x->rank);
    int r = x->rank - 1 + idx->rank;
    if (r > MAX_RANK)
        o2c_error(c, n, "output rank %d is above %d", r, MAX_RANK);
    Sym **shape = sym_arr(c, r);
    int k = 0;
    for (int d = 0; d < axis; d++)
        shape[k++] = x->shape[d];
    for (int d = 0; d < idx->rank; d++)
        shape[k++] = idx->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        shape[k++] = x->shape[d];
    ir_set_shape(c, n->out[0], x->dtype, r, shape);
    GatherPriv *g = arena_alloc(c->arena, sizeof *g);
    g->axis = axis;
    g->outer = sym_prod(c->sym, x->shape, 0, axis);
    g->inner = sym_prod(c->sym, x->shape, axis + 1, x->rank);
    g->nidx = ir_numel(c, idx);
    g->dim = x->shape[axis];
    n->priv = g;
    /* folding: one piece [outer, inner] per constant index */
    int64_t ni, dimv;
    Sym **ik = (x->data || x->kv) ? ir_known_ints(c, idx) : NULL;
    if (!ik || !ir_numel_const(idx, &ni) || ni > FOLD_MAX_KV || !sym_get_const(g->dim, &dimv))
        return;
    Pieces ps = {0, 0, NULL, NULL, false};
    for (int64_t j = 0; j < ni; j++) {
        int64_t iv;
        if (!sym_get_const(ik[j], &iv))
            return;
        if (iv < -dimv || iv >= dimv)
            o2c_error(c, n, "index %lld is out of range for dimension %d of size %lld",
                      (long long)iv, axis, (long long)dimv);
        if (iv < 0)
            iv += dimv;
        Piece *p = add_piece(c, &ps, x, 0, 2);
        p->size[0] = g->outer;
        p->size[1] = g->inner;
        p->dstride[0] = sym_mul(c->sym, K(c, ni), g->inner);
        p->dstride[1] = K(c, 1);
        p->sstride[0] = sym_mul(c->sym, K(c, dimv), g->inner);
        p->sstride[1] = K(c, 1);
        p->dbase = sym_mul(c->sym, K(c, j), g->inner);
        p->sbase = sym_mul(c->sym, K(c, iv), g->inner);
    }
    fold_pieces(c, n, &ps);
}

void emit_gather(Compiler *c, Emit *e, Node *n) {
    const GatherPriv *g = n->priv;
    Value *x = n->in[0], *idx = n->in[1], *y = n->out[0];
    const char *X = emit_ptr(e, x), *I = emit_ptr(e, idx), *Y = emit_ptr(e, y);
    const char *ni = emit_sym(e, g->nidx), *dim = emit_sym(e, g->dim), *T = dtype_ctype(y->dtype);
    bool outer = g->outer != K(c, 1), inner = g->inner != K(c, 1);
    const char *yrow = outer ? arena_printf(emit_arena(e), "o * %s + j", ni) : "j";
    const char *xrow = outer ? arena_printf(emit_arena(e), "o * %s + k", dim) : "k";
    emit_index_check(c, e, idx, g->dim);
    if (outer) {
        emit_line(e, "for (int64_t o = 0; o < %s; o++) {", emit_sym(e, g->outer));
        emit_indent(e, 1);
    }
    emit_line(e, "for (int64_t j = 0; j < %s; j++) {", ni);
    emit_indent(e, 1);
    emit_line(e, "int64_t k = (int64_t)%s[j];", I);
    emit_line(e, "if (k < 0)");
    emit_line(e, "    k += %s;", dim);
    if (!inner) {
        emit_line(e, "%s[%s] = %s[%s];", Y, yrow, X, xrow);
    } else {
        const char *in = emit_sym(e, g->inner);
        emit_line(e, "memcpy(%s + (%s) * %s, %s + (%s) * %s, (size_t)%s * sizeof(%s));", Y, yrow,
                  in, X, xrow, in, in, T);
    }
    emit_indent(e, -1);
    emit_line(e, "}");
    if (outer) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
}

/* ---- GatherElements: y[i...] = x[i... with i_axis replaced by idx[i...]]; y.shape = idx.shape
 * (same rank as x; negative indices add the dim; out of range is an error, as for Gather). */

void infer_gather_elements(Compiler *c, Node *n) {
    Value *x = infer_in(c, n, 0), *idx = infer_in(c, n, 1);
    require_rank(c, n, x, -1);
    check_indices_type(c, n, idx);
    if (idx->rank != x->rank || x->rank == 0)
        o2c_error(c, n, "indices have rank %d but data has rank %d (must be equal and >= 1)",
                  idx->rank, x->rank);
    int axis = infer_axis(c, n, attr_int(c, n, "axis", 0), x->rank);
    for (int d = 0; d < x->rank; d++) {
        int64_t a, b;
        if (d != axis && sym_get_const(idx->shape[d], &a) && sym_get_const(x->shape[d], &b) && a > b)
            o2c_error(c, n, "indices dimension %d (%lld) is larger than data's (%lld)", d,
                      (long long)a, (long long)b);
        if (d != axis && idx->shape[d] != x->shape[d])
            ir_constrain(c, n, CK_LE, idx->shape[d], x->shape[d],
                         "GatherElements indices dimension %d must not exceed data's", d);
    }
    int *pa = arena_alloc(c->arena, sizeof(int));
    *pa = axis;
    n->priv = pa;
    ir_set_shape(c, n->out[0], x->dtype, idx->rank, idx->shape);
}

void emit_gather_elements(Compiler *c, Emit *e, Node *n) {
    int axis = *(const int *)n->priv;
    Value *x = n->in[0], *idx = n->in[1], *y = n->out[0];
    int r = x->rank;
    Sym **xs = ir_strides(c, r, x->shape);
    const char *X = emit_ptr(e, x), *I = emit_ptr(e, idx), *Y = emit_ptr(e, y);
    const char *dim = emit_sym(e, x->shape[axis]);
    Buf src;
    buf_init_in(&src, c->arena);
    emit_index_check(c, e, idx, x->shape[axis]);
    emit_line(e, "int64_t o = 0;");
    for (int d = 0; d < r; d++) {
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, y->shape[d]), d);
        emit_indent(e, 1);
        const char *iv = d == axis ? "k" : arena_printf(emit_arena(e), "i%d", d);
        buf_printf(&src, "%s%s", src.len ? " + " : "", term(e, iv, xs[d]));
    }
    emit_line(e, "int64_t k = (int64_t)%s[o];", I);
    emit_line(e, "if (k < 0)");
    emit_line(e, "    k += %s;", dim);
    emit_line(e, "%s[o] = %s[%s];", Y, X, src.data);
    emit_line(e, "o++;");
    for (int d = 0; d < r; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    buf_free(&src);
}

/* ---- Pad: y.shape[d] = x.shape[d] + begin[d] + end[d] (negative pads crop).
 * Opset 1: attribute `paddings`; 2..10: attribute `pads`; 11+: input pads (known at compile
 * time) and optional constant_value input; 18+: optional axes input.  pads is
 * [b_1..b_r, e_1..e_r].  Input coordinate j = i - begin; modes: constant (outside -> value),
 * reflect (j < 0 -> -j, j >= D -> 2(D-1) - j), edge (clamp to [0, D-1]), wrap (j mod D). */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

typedef struct PadPriv {
    int mode;
    Sym *begin[MAX_RANK], *end[MAX_RANK]; /* Syms: pads may come from shape arithmetic */
    double value; /* attribute value (opset < 11) */
    /* declared shapes: pads read at run time, for the axes axes[0..nax) */
    Value *rt_pads;
    int nax;
    int axes[MAX_RANK];
} PadPriv;

void infer_pad(Compiler *c, Node *n) {
    SymCtx *s = c->sym;
    infer_require_inputs(c, n, n->opset >= 11 ? 2 : 1, n->opset >= 11 ? 4 : 1);
    Value *x = infer_in(c, n, 0);
    require_rank(c, n, x, -1);
    int r = x->rank;
    PadPriv *pp = arena_alloc(c->arena, sizeof *pp);
    const char *mode = attr_str(c, n, "mode", "constant");
    if (!strcmp(mode, "constant"))
        pp->mode = PAD_CONSTANT;
    else if (!strcmp(mode, "reflect"))
        pp->mode = PAD_REFLECT;
    else if (!strcmp(mode, "edge"))
        pp->mode = PAD_EDGE;
    else if (!strcmp(mode, "wrap") && n->opset >= 19)
        pp->mode = PAD_WRAP;
    else
        o2c_error(c, n, "mode '%s' is not supported (constant, reflect, edge%s)", mode,
                  n->opset >= 19 ? ", wrap" : "");
    int64_t np;
    Sym **pads;
    int64_t axes[MAX_RANK];
    int nax = r;
    for (int d = 0; d < r; d++)
        axes[d] = d;
    if (n->opset >= 11) {
        if (infer_runtime_ints(c, n->in[1])) {
            np = -1; /* below: its count, implied by the axes when symbolic */
            pp->rt_pads = n->in[1];
            pads = NULL;
        } else
            pads = infer_need_ints(c, n, n->in[1], "pads", &np, false);
        Value *cv = node_in(n, 2);
        if (cv && infer_implied_len(c, n, cv, 1, "constant_value") != 1)
            o2c_error(c, n, "constant_value must hold one element");
        if (cv && cv->dtype != x->dtype)
            o2c_error(c, n, "constant_value has type %s but data has %s", dtype_name(cv->dtype),
                      dtype_name(x->dtype));
        Value *av = node_in(n, 3);
        if (av) {
            int64_t na;
            int64_t *a = infer_need_const_ints(c, n, av, "axes", &na, false);
            nax = (int)na;
            if (nax > r)
                o2c_error(c, n, "axes has %d entries but the input has rank %d", nax, r);
            for (int i = 0; i < nax; i++)
                axes[i] = infer_axis(c, n, a[i], r);
        }
    } else {
        const int64_t *a;
        const char *name = n->opset < 2 ? "paddings" : "pads";
        np = attr_ints(c, n, name, &a);
        if (np < 0)
            o2c_error(c, n, "attribute '%s' is required", name);
        pads = sym_arr(c, (int)(np > 0 ? np : 1));
        for (int i = 0; i < np; i++)
            pads[i] = K(c, a[i]);
        pp->value = attr_float(c, n, "value", 0.0f);
        if (pp->value != 0 && (x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16))
            o2c_error(c, n, "a non-zero pad value is not supported for %s", dtype_name(x->dtype));
    }
    if (pp->rt_pads)
        np = infer_implied_len(c, n, pp->rt_pads, 2 * nax, "pads");
    if (np != 2 * nax)
        o2c_error(c, n, "pads has %lld entries, expected %d (2 per axis)", (long long)np, 2 * nax);
    Sym **shape = sym_arr(c, r);
    for (int d = 0; d < r; d++) {
        shape[d] = x->shape[d];
        pp->begin[d] = pp->end[d] = K(c, 0);
    }
    if (pp->rt_pads) {
        /* runtime pads: the declared shape, checked by emit_pad */
        infer_declared_out(c, n, pp->rt_pads, "pads", n->out[0], x->dtype, r);
        pp->nax = nax;
        bool padded[MAX_RANK] = {false};
        for (int i = 0; i < nax; i++) {
            pp->axes[i] = (int)axes[i];
            padded[axes[i]] = true;
        }
        for (int d = 0; d < r; d++)
            if (!padded[d])
                infer_declared_agree(c, n, n->out[0], d, x->shape[d]);
        n->priv = pp;
        return;
    }
    for (int i = 0; i < nax; i++) {
        int d = (int)axes[i];
        Sym *b = pads[i], *e = pads[i + nax], *D = x->shape[d];
        pp->begin[d] = b;
        pp->end[d] = e;
        shape[d] = sym_add(s, sym_add(s, D, b), e);
        int64_t v;
        if (sym_get_const(shape[d], &v) && v < 0)
            o2c_error(c, n, "pads crop more than dimension %d holds", d);
        int64_t bv, ev;
        if (!(sym_get_const(b, &bv) && bv >= 0 && sym_get_const(e, &ev) && ev >= 0))
            ir_constrain(c, n, CK_LE, K(c, 0), shape[d],
                         "Pad: pads must not crop more than dimension %d", d);
        if (pp->mode == PAD_CONSTANT)
            continue;
        for (int side = 0; side < 2; side++) {
            Sym *w = side ? e : b;
            if (sym_get_const(w, &v) && v <= 0)
                continue;
            int64_t dv;
            bool dk = sym_get_const(D, &dv);
            if (dk && dv == 0)
                o2c_error(c, n, "cannot pad an empty dimension %d in mode '%s'", d, mode);
            if (pp->mode == PAD_REFLECT) {
                if (dk && sym_get_const(w, &v) && v > dv - 1)
                    o2c_error(c, n, "reflect pad %lld is larger than dimension %d - 1 (%lld)",
                              (long long)v, d, (long long)(dv - 1));
                ir_constrain(c, n, CK_LE, sym_add(s, w, K(c, 1)), D,
                             "Pad reflect: dimension %d must exceed the pad", d);
            } else
                ir_constrain(c, n, CK_LE, K(c, 1), D, "Pad: dimension %d must not be empty", d);
        }
    }
    ir_set_shape(c, n->out[0], x->dtype, r, shape);
    n->priv = pp;
}

void emit_pad(Compiler *c, Emit *e, Node *n) {
    const PadPriv *pp = n->priv;
    Value *x = n->in[0], *y = n->out[0];
    int r = x->rank;
    Arena *a = emit_arena(e);
    Sym **xs = ir_strides(c, r, x->shape);
    const char *X = emit_ptr(e, x), *Y = emit_ptr(e, y);
    Value *cv = n->opset >= 11 ? node_in(n, 2) : NULL;
    Buf src;
    buf_init_in(&src, c->arena);
    const char *ok = NULL;
    bool rt[MAX_RANK] = {false};
    if (pp->rt_pads) {
        /* runtime pads: the declared dims must be x + begin + end, checked as
         * end == (y - x) - begin without overflow for any int64 pads (a difference outside
         * int64 equals no end); non-constant modes must not read outside the input */
        const char *P = emit_ptr(e, pp->rt_pads);
        for (int i = 0; i < pp->nax; i++) {
            int d = pp->axes[i];
            const char *D = emit_sym(e, x->shape[d]);
            rt[d] = true;
            emit_line(e, "const int64_t pb%d = (int64_t)%s[%d], pe%d = (int64_t)%s[%d];", d, P, i,
                      d, P, i + pp->nax);
            emit_line(e, "const int64_t pd%d = %s - %s;", d, emit_sym(e, y->shape[d]), D);
            emit_line(e, "if ((pb%d < 0 ? pd%d > INT64_MAX + pb%d : pd%d < INT64_MIN + pb%d) || "
                         "pd%d - pb%d != pe%d)",
                      d, d, d, d, d, d, d, d);
            emit_line(e, "    return %d;", O2C_RUN_EDATA);
            if (pp->mode == PAD_REFLECT)
                emit_line(e, "if ((pb%d > 0 && pb%d > %s - 1) || (pe%d > 0 && pe%d > %s - 1))", d, d,
                          D, d, d, D);
            else if (pp->mode != PAD_CONSTANT)
                emit_line(e, "if ((pb%d > 0 || pe%d > 0) && %s < 1)", d, d, D);
            if (pp->mode != PAD_CONSTANT)
                emit_line(e, "    return %d;", O2C_RUN_EDATA);
        }
    }
    emit_line(e, "int64_t o = 0;");
    for (int d = 0; d < r; d++) {
        const char *D = emit_sym(e, x->shape[d]);
        Sym *b = pp->begin[d], *en = pp->end[d];
        int64_t bv, ev;
        bool bk = sym_get_const(b, &bv), ek = sym_get_const(en, &ev);
        if (rt[d])
            bk = ek = false;
        emit_line(e, "for (int64_t i%d = 0; i%d < %s; i%d++) {", d, d, emit_sym(e, y->shape[d]), d);
        emit_indent(e, 1);
        if (bk && ek && bv == 0 && ev == 0) {
            buf_printf(&src, "%s%s", src.len ? " + " : "", term(e, arena_printf(a, "i%d", d), xs[d]));
            continue;
        }
        if (rt[d] && pp->mode == PAD_WRAP)
            emit_line(e, "int64_t j%d = i%d %% %s - pb%d %% %s;", d, d, D, d, D);
        else if (rt[d])
            /* i - begin, or the dim where that would overflow (it is then past the end) */
            emit_line(e, "int64_t j%d = pb%d >= 0 || i%d < %s + pb%d ? i%d - pb%d : %s;", d, d, d,
                      D, d, d, d, D);
        else if (bk && bv == 0)
            emit_line(e, "int64_t j%d = i%d;", d, d);
        else if (bk && bv < 0)
            emit_line(e, "int64_t j%d = i%d + %lld;", d, d, (long long)-bv);
        else
            emit_line(e, "int64_t j%d = i%d - %s;", d, d, emit_sym(e, b));
        /* which sides can reach outside the input (a constant pad <= 0 cannot) */
        bool lo = !bk || bv > 0, hi = !ek || ev > 0;
        switch (pp->mode) {
        case PAD_CONSTANT: {
            const char *nok = arena_printf(a, "ok%d", d);
            emit_line(e, "const int %s = %s%sj%d >= 0 && j%d < %s;", nok, ok ? ok : "",
                      ok ? " && " : "", d, d, D);
            ok = nok;
            break;
        }
        case PAD_REFLECT:
            if (lo)
                emit_line(e, "if (j%d < 0) j%d = -j%d;", d, d, d);
            if (hi)
                emit_line(e, "if (j%d >= %s) j%d = 2 * %s - 2 - j%d;", d, D, d, D, d);
            break;
        case PAD_EDGE:
            if (lo)
                emit_line(e, "if (j%d < 0) j%d = 0;", d, d);
            if (hi)
                emit_line(e, "if (j%d >= %s) j%d = %s - 1;", d, D, d, D);
            break;
        case PAD_WRAP:
            emit_line(e, "j%d = ((j%d %% %s) + %s) %% %s;", d, d, D, D, D);
            break;
        }
        buf_printf(&src, "%s%s", src.len ? " + " : "", term(e, arena_printf(a, "j%d", d), xs[d]));
    }
    if (ok) {
        /* the pad value, named only where read (an unread pointer would be an unused local) */
        const char *val = cv ? arena_printf(a, "%s[0]", emit_ptr(e, cv))
                             : emit_literal(e, x->dtype, pp->value);
        emit_line(e, "%s[o++] = %s ? %s[%s] : %s;", Y, ok, X, src.len ? src.data : "0", val);
    } else
        emit_line(e, "%s[o++] = %s[%s];", Y, X, src.len ? src.data : "0");
    for (int d = 0; d < r; d++) {
        emit_indent(e, -1);
        emit_line(e, "}");
    }
    buf_free(&src);
}

/* ---- ReverseSequence (opset 10): x of rank >= 2 with batch_axis and time_axis {0, 1} (one
 * each); for batch entry b the first sequence_lens[b] steps along time_axis are reversed, the
 * rest copied (templates/layout_revseq.c).  sequence_lens (int64, [batch]) is read at run time;
 * a length outside [0, steps] makes NAME_run return O2C_RUN_EINDEX before the node writes
 * anything (a length counts steps of the time axis: outside it names steps that do not exist). */

void infer_revseq(Compiler *c, Node *n) {
    if (n->nout != 1 || !n->out[0])
        o2c_error(c, n, "expected exactly one output");
    Value *x = infer_in(c, n, 0), *lens = infer_in(c, n, 1);
    if (x->rank < 2)
        o2c_error(c, n, "input rank %d: expected rank >= 2", x->rank);
    if (dtype_size(x->dtype) == 0)
        o2c_error(c, n, "input type %s is not supported", dtype_name(x->dtype));
    if (lens->dtype != DT_INT64 || lens->rank != 1)
        o2c_error(c, n, "sequence_lens must be a 1-D int64 tensor");
    int64_t ba = attr_int(c, n, "batch_axis", 1), ta = attr_int(c, n, "time_axis", 0);
    if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
        o2c_error(c, n, "batch_axis = %lld, time_axis = %lld: must be 0 and 1 or 1 and 0",
                  (long long)ba, (long long)ta);
    n->op_i[0] = ba;
    ir_constrain(c, n, CK_EQ, lens->shape[0], x->shape[ba],
                 "sequence_lens length must equal the batch dimension");
    ir_set_shape(c, n->out[0], x->dtype, x->rank, x->shape);
}

void emit_revseq(Compiler *c, Emit *e, Node *n) {
    Value *x = n->in[0];
    int ba = (int)n->op_i[0];
    const char *sfx = emit_template(e, "layout_revseq", x->dtype);
    Sym *B = x->shape[ba], *S = x->shape[1 - ba];
    emit_line(e, "if (revseq_%s(%s, %s, %s, %s, %s, %s, %s, %s))", sfx, emit_ptr(e, x),
              emit_ptr(e, n->in[1]), emit_ptr(e, n->out[0]), emit_sym(e, B), emit_sym(e, S),
              ba == 0 ? emit_sym(e, S) : "1", ba == 0 ? "1" : emit_sym(e, B),
              emit_sym(e, sym_prod(c->sym, x->shape, 2, x->rank)));
    emit_line(e, "    return %d;", O2C_RUN_EINDEX);
}
