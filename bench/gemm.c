/* gemm.c — times the project's GEMM kernel (templates/gemm.c) on an N x N x N float product.
 *
 *   gcc -O3 -march=native -fopenmp bench/gemm.c -lm -o build/bench/gemm/gemm
 *   gemm [--n N] [--runs R] [--warmup W] [--serve]
 *
 * C = A * B with A, B, C row-major N x N (N = 1024 by default), alpha 1, beta 0: what MatMul
 * emits.  The first product is checked against a double-precision dot product at 64 random
 * entries ("check ok|FAIL").  Then as bench/driver.c: prints every time and the median (ms) and
 * GFLOP/s = 2 N^3 / time, or with --serve answers "run K" with "times t1 ... tK" (ms).
 * Thread count: OMP_NUM_THREADS, should the kernel use `#pragma omp`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The kernel compiles standalone: T is the element type. */
#define T float
#include "../templates/gemm.c"

/* The adapter: the only code that knows the kernel's interface.  templates/gemm.c is being
 * reworked: the packed engine (GEMM_PACKED defined) takes an epilogue and a scratch buffer of
 * GEMM_MC*GEMM_KC + GEMM_KC*(GEMM_NC+NR) elements (allocated once, outside the timing, as a model's workspace
 * is); the older blocked kernel takes neither.  Both operands unpacked, as a runtime MatMul. */
static void bench_gemm(int64_t n, const float *A, const float *B, float *C) {
#ifdef GEMM_PACKED
    static T *work;
    if (!work) {
        /* the engine's scratch: one packed A block and one packed B panel (+ alignment) */
        size_t elems = (size_t)(GEMM_MC * GEMM_KC + GEMM_KC * (GEMM_NC + GEMM_NR_T) + 16);
        work = aligned_alloc(64, (elems * sizeof(T) + 63) / 64 * 64 + 64);
        if (!work) {
            fprintf(stderr, "gemm: out of memory\n");
            exit(2);
        }
    }
    gemm_T(n, n, n, A, n, 0, B, n, 0, C, n, 1.0f, 0.0f, NULL, work);
#else
    gemm_T(n, n, n, A, n, 0, B, n, 0, C, n, 1.0f, 0.0f);
#endif
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static float *falloc(size_t n) {
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "gemm: out of memory\n");
        exit(2);
    }
    return p;
}

int main(int argc, char **argv) {
    int64_t n = 1024, i;
    int runs = 20, warmup = 3, serve = 0, k, bad = 0;
    float *A, *B, *C;
    double *times, worst = 0;
    char line[256];

    for (k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--n") && k + 1 < argc)
            n = atoll(argv[++k]);
        else if (!strcmp(argv[k], "--runs") && k + 1 < argc)
            runs = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--warmup") && k + 1 < argc)
            warmup = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--serve"))
            serve = 1;
        else {
            fprintf(stderr, "usage: %s [--n N] [--runs R] [--warmup W] [--serve]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1 || runs < 1)
        return 2;
    A = falloc((size_t)(n * n));
    B = falloc((size_t)(n * n));
    C = falloc((size_t)(n * n));
    srand(1);
    for (i = 0; i < n * n; i++) {
        A[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
        B[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
    }
    bench_gemm(n, A, B, C);
    for (k = 0; k < 64; k++) {
        int64_t r = rand() % n, c = rand() % n, j;
        double want = 0, mag = 0, e;
        for (j = 0; j < n; j++) {
            want += (double)A[r * n + j] * B[j * n + c];
            mag += fabs((double)A[r * n + j] * B[j * n + c]);
        }
        e = fabs(C[r * n + c] - want) / (1e-5 + 1e-5 * mag); /* sum-order rounding bound */
        if (!(e <= 1.0))
            bad++;
        if (!(e <= worst))
            worst = e;
    }
    printf("check %s worst_err/tol %.3g\n", bad ? "FAIL" : "ok", worst);
    for (k = 0; k < warmup; k++)
        bench_gemm(n, A, B, C);

    if (serve) {
        printf("ready\n");
        fflush(stdout);
        times = NULL;
        while (fgets(line, sizeof line, stdin)) {
            int m;
            if (sscanf(line, "run %d", &m) != 1 || m < 1)
                break;
            times = realloc(times, (size_t)m * sizeof *times);
            for (k = 0; k < m; k++) {
                double t0 = now_ms();
                bench_gemm(n, A, B, C);
                times[k] = now_ms() - t0;
            }
            printf("times");
            for (k = 0; k < m; k++)
                printf(" %.4f", times[k]);
            printf("\n");
            fflush(stdout);
        }
        free(times);
        return 0;
    }
    times = malloc((size_t)runs * sizeof *times);
    for (k = 0; k < runs; k++) {
        double t0 = now_ms();
        bench_gemm(n, A, B, C);
        times[k] = now_ms() - t0;
    }
    printf("times");
    for (k = 0; k < runs; k++)
        printf(" %.4f", times[k]);
    qsort(times, (size_t)runs, sizeof *times, cmp_double);
    {
        double med = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
        printf("\nmedian %.4f ms over %d runs, %.2f GFLOP/s\n", med, runs,
               2.0 * (double)n * n * n / (med * 1e6));
    }
    free(times);
    return bad ? 1 : 0;
}
