/* npy.c — NumPy's .npy files, the tensors onnx2c-run reads as inputs and references and writes
 * as outputs.
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a version byte pair, the header's
 * length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), then the header: a
 * Python dict literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and a newline so that the data starts at a multiple of 64 bytes; then the
 * elements.  We read versions 1.0 to 3.0 holding the element types of CONTRACT.md §2 in
 * little-endian C order, and write version 1.0.  bfloat16, which NumPy lacks, is its bits as
 * '<u2' (read back as bfloat16 where a bfloat16 tensor is expected). */
#include "runtime.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Element types by descr: NumPy's byte order ('<' little-endian, '|' not applicable) and kind. */
static const struct {
    const char *descr;
    DType dtype;
} kinds[] = {
    {"<f4", DT_FLOAT}, {"<f8", DT_DOUBLE}, {"<f2", DT_FLOAT16}, {"|i1", DT_INT8},
    {"|u1", DT_UINT8}, {"<i2", DT_INT16},  {"<u2", DT_UINT16},  {"<i4", DT_INT32},
    {"<u4", DT_UINT32}, {"<i8", DT_INT64}, {"<u8", DT_UINT64},  {"|b1", DT_BOOL},
};

/* descr's type; any byte order but big-endian ('>') is taken as little-endian ('=' native). */
static DType dtype_of(const char *descr) {
    if (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')
        return DT_UNDEFINED;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(descr + 1, kinds[k].descr + 1))
            return kinds[k].dtype;
    return DT_UNDEFINED;
}

static const char *descr_of(DType t) {
    if (t == DT_BFLOAT16)
        t = DT_UINT16;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (kinds[k].dtype == t)
            return kinds[k].descr;
    return NULL;
}

/* The header's value of 'key' (after its colon and spaces), or NULL. */
static const char *find_key(const char *h, const char *key) {
    char q1[64], q2[64];
    snprintf(q1, sizeof q1, "'%s'", key);
    snprintf(q2, sizeof q2, "\"%s\"", key);
    const char *p = strstr(h, q1);
    if (!p)
        p = strstr(h, q2);
    if (!p)
        return NULL;
    p += strlen(q1);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

/* Parses the header dict; returns NULL or what is wrong. */
static const char *parse_header(const char *h, char *descr, size_t dcap, bool *fortran, int *rank,
                                int64_t *dims, int maxrank) {
    const char *p = find_key(h, "descr");
    if (!p || (*p != '\'' && *p != '"'))
        return "its header has no 'descr'";
    char q = *p++;
    size_t n = 0;
    while (*p && *p != q && n + 1 < dcap)
        descr[n++] = *p++;
    descr[n] = 0;
    if (*p != q)
        return "its header's 'descr' is not a plain type";
    p = find_key(h, "fortran_order");
    if (!p)
        return "its header has no 'fortran_order'";
    *fortran = !strncmp(p, "True", 4);
    if (!*fortran && strncmp(p, "False", 5))
        return "its header's 'fortran_order' is neither True nor False";
    p = find_key(h, "shape");
    if (!p || *p != '(')
        return "its header has no 'shape'";
    p++;
    *rank = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')')
            break;
        if (*rank == maxrank)
            return "its rank is too large";
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0)
            return "its header's 'shape' is not a tuple of sizes";
        dims[(*rank)++] = v;
        p = end;
        while (*p == ' ' || *p == 'L')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ')')
            return "its header's 'shape' is not a tuple of sizes";
    }
    return NULL;
}

int npy_read(const char *path, Tensor **out, char *err, size_t errlen) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return O2C_EIO;
    }
    int st = O2C_EMODEL;
    const char *why = NULL;
    char *header = NULL;
    Tensor *t = calloc(1, sizeof *t);
    unsigned char pre[12];
    if (!t) {
        why = "out of memory";
        goto done;
    }
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
        why = "not a .npy file";
        goto done;
    }
    size_t hlen;
    if (pre[6] == 1)
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    else if ((pre[6] == 2 || pre[6] == 3) && fread(pre + 10, 1, 2, f) == 2)
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    else {
        why = "a .npy version other than 1.0, 2.0 or 3.0";
        goto done;
    }
    if (hlen > (1u << 20) || !(header = malloc(hlen + 1)) || fread(header, 1, hlen, f) != hlen) {
        why = "its header is truncated or too long";
        goto done;
    }
    header[hlen] = 0;
    char descr[32];
    bool fortran;
    int64_t dims[JM_MAX_RANK];
    if ((why = parse_header(header, descr, sizeof descr, &fortran, &t->rank, dims, JM_MAX_RANK)))
        goto done;
    t->dtype = dtype_of(descr);
    if (t->dtype == DT_UNDEFINED) {
        snprintf(err, errlen, "%s: the element type '%s' is not one onnx2c reads (little-endian "
                 "bool, int8..int64, uint8..uint64, float16, float, double)", path, descr);
        goto done;
    }
    size_t es = onnx2c_dtype_size(t->dtype), bytes = es;
    t->nelem = 1;
    for (int d = 0; d < t->rank; d++) {
        if (dims[d] && (uint64_t)t->nelem > (uint64_t)INT64_MAX / (uint64_t)dims[d] / es) {
            why = "its shape is too large";
            goto done;
        }
        t->nelem *= dims[d];
    }
    bytes = (size_t)t->nelem * es;
    if (fortran && t->rank > 1) {
        why = "it is in Fortran order (save it with numpy.ascontiguousarray)";
        goto done;
    }
    t->dims = malloc(sizeof(int64_t) * (size_t)(t->rank + 1));
    t->data = malloc(bytes + 1);
    if (!t->dims || !t->data) {
        why = "out of memory";
        goto done;
    }
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)t->rank);
    if (fread(t->data, 1, bytes, f) != bytes || fgetc(f) != EOF) {
        why = "its data size does not match its header";
        goto done;
    }
    st = O2C_OK;
done:
    if (why)
        snprintf(err, errlen, "%s: %s", path, why);
    fclose(f);
    free(header);
    if (st) {
        onnx2c_tensor_free(t);
        return st;
    }
    *out = t;
    return O2C_OK;
}

int npy_write(const char *path, DType dtype, int rank, const int64_t *dims, const void *data,
              char *err, size_t errlen) {
    const char *descr = descr_of(dtype);
    if (!descr) {
        snprintf(err, errlen, "%s: .npy has no %s type", path, onnx2c_dtype_name(dtype));
        return O2C_EUSAGE;
    }
    char h[4096];
    size_t n = (size_t)snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    size_t nelem = 1;
    for (int d = 0; d < rank && n < sizeof h; d++) {
        n += (size_t)snprintf(h + n, sizeof h - n, "%lld,%s", (long long)dims[d],
                              d + 1 < rank ? " " : "");
        nelem *= (size_t)dims[d];
    }
    if (rank > 1 && n < sizeof h)
        n--; /* (2, 3): a trailing comma only for one element, (3,) */
    if (n < sizeof h)
        n += (size_t)snprintf(h + n, sizeof h - n, "), }");
    if (n + 64 >= sizeof h) {
        snprintf(err, errlen, "%s: the shape is too long for a .npy header", path);
        return O2C_EUSAGE;
    }
    while ((10 + n + 1) % 64)
        h[n++] = ' ';
    h[n++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 255),
                             (unsigned char)(n >> 8)};
    size_t bytes = nelem * onnx2c_dtype_size(dtype);
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return O2C_EIO;
    }
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, n, f) == n &&
              (!bytes || fwrite(data, 1, bytes, f) == bytes);
    if (fclose(f) != 0 || !ok) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        return O2C_EIO;
    }
    return O2C_OK;
}
