/* test_ops_text.c — the text family (compiler/ops/text.c, templates/text_tfidf.c):
 * TfIdfVectorizer on integer tokens.
 *
 * The cases of tests/data/text/cases (make_text.py, references by enumeration of every n-gram
 * and skip) run through onnx2c-test under libtcc, gcc's strict C99 flags and with every input
 * axis symbolic; ctest's op_cases_* run them too.  The bad_*.onnx models check the errors: one
 * line, naming the node and what is wrong. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <string.h>

#define TEXT TU_DATA("text")

static const char *const cases[] = {
    "tfidf_weights_i64_sym", "idf_weights_i32_1d", "idf_noweights_uni",
    "tf_cols_shared_gap",    "tf_random_sym",      "tfidf_noweights_3gram",
};

Test(text, cases_tcc) {
    tu_run_cases(TEXT "cases", cases, sizeof cases / sizeof *cases, "");
}

Test(text, cases_strict) {
    tu_run_cases(TEXT "cases", cases, sizeof cases / sizeof *cases, "--strict");
}

Test(text, cases_dynamic) {
    tu_run_cases(TEXT "cases", cases, sizeof cases / sizeof *cases, "--dynamic --no-declared");
}

/* The output is [N, K] with K = max(ngram_indexes) + 1 for any N, C (C below the 3-gram length
 * included). */
Test(text, output_shape) {
    const int64_t dims[2] = {3, 2}, want[2] = {3, 10};
    tu_expect_file_shape(TEXT "cases/tfidf_weights_i64_sym/model.onnx", dims, 2, want);
    const int64_t dims1[1] = {1}, want1[1] = {7};
    tu_expect_file_shape(TEXT "cases/idf_weights_i32_1d/model.onnx", dims1, 1, want1);
}

/* The pool is sorted at compile time into static const tables (a level the lengths do not
 * count is left out); the step names its node. */
Test(text, generated_code) {
    Output o;
    tu_compile_ok(TEXT "cases/tfidf_weights_i64_sym/model.onnx", &o);
    cr_assert_not_null(strstr(o.c_src, "/* tfidf_weights_i64_sym: TfIdfVectorizer X[N,C] -> "
                                       "Y[N,10]"), "%s", o.c_src);
    /* 1-grams, 2-grams, 3-grams each sorted; the 4-gram (1, 2, 3, 4) is not there */
    cr_assert_not_null(strstr(o.c_src, "[18] = {1, 3, 4, 1, 2, 2, 4, 3, 1, 1, 2, 3, 2, 1, 3, 4, "
                                       "4, 1};"), "%s", o.c_src);
    onnx2c_output_free(&o);
}

Test(text, errors) {
#define ERR(file, msg) tu_expect_error(TEXT file, O2C_EMODEL, msg)
#define NODE "node 'tfidf' (TfIdfVectorizer): "
    ERR("bad_strings.onnx", "string tensor");
    ERR("bad_pool_strings.onnx", NODE "string tensors are not supported (pool_strings)");
    ERR("bad_type.onnx", NODE "input type float: expected int32 or int64");
    ERR("bad_rank.onnx", NODE "input has rank 3: expected [C] or [N, C]");
    ERR("bad_mode.onnx", NODE "mode 'BM25': expected TF, IDF or TFIDF");
    ERR("bad_gram_range.onnx", NODE "max_gram_length = 2 is less than min_gram_length = 3");
    ERR("bad_skip.onnx", NODE "max_skip_count = -1: expected >= 0");
    ERR("bad_no_pool.onnx", NODE "attribute pool_int64s is required");
    ERR("bad_counts.onnx",
        NODE "the 2-grams of the pool (items 2 to 7) are not a whole number of 2-grams");
    ERR("bad_counts_order.onnx", NODE "ngram_counts[2] = 4 is out of order");
    ERR("bad_indexes_count.onnx", NODE "ngram_indexes has 4 entries but the pool holds 5 n-grams");
    ERR("bad_index_negative.onnx", NODE "ngram_indexes[2] = -1 is out of range");
    ERR("bad_weights_len.onnx",
        NODE "weights has 3 entries: expected one per n-gram of the pool (5)");
    ERR("bad_weights_gap.onnx", NODE "output column 5 has no weight");
    ERR("bad_duplicate.onnx", NODE "pool n-gram 4 repeats n-gram 2 (a 2-gram)");
#undef NODE
#undef ERR
}
