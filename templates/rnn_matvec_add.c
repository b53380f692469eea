/* rnn_matvec_add.c - the recurrence of RNN and LSTM (rnn_rnn.c, rnn_lstm.c; GRU gates its own
 * R h by r first). */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#include "rnn_common.c"
#endif
#ifndef O2C_RNN_MATVEC_ADD_T /* (once per element type: other templates include it) */
#define O2C_RNN_MATVEC_ADD_T

/* g[j] += bias[j] + dot(m row j, v): the recurrence R H + Rb added to gate sums that hold
 * W x + Wb; bias may be NULL. */
static inline void rnn_matvec_add_T(T *g, const T *m, const T *v, const T *bias, int64_t rows,
                                    int64_t n) {
    for (int64_t j = 0; j < rows; j++)
        g[j] += (bias ? bias[j] : (T)0) + rnn_dot_T(m + j * n, v, n);
}
#endif
