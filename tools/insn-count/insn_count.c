/* insn_count.c — a QEMU TCG plugin that counts executed guest instructions.
 *
 *   qemu-system-arm ... -plugin tools/insn-count/build/insn_count.so[,outfile=PATH][,exact=on]
 *
 * When the guest ends, it writes "insns N\n" to PATH (default: stderr). Counting is inline in
 * the translated code (no helper call): by default one add per translation block of its
 * instruction count when the block starts, which is exact as long as no block is left midway
 * (a fault or an interrupt in the block); exact=on adds 1 before every instruction instead
 * (exact always, slower). blocks=on also counts per translation block and writes, after the
 * total, "tb ADDR INSNS EXECS" (decimal) per block executed (tools/insn-count/profile.sh sums them per
 * function of the ELF). Single vCPU (the Cortex-M boards). Build: tools/insn-count/build.sh. */
#include "plugin_api.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t count;
static char outfile[1024];
static int exact, blocks;

/* blocks=on: one counter per block start address (open addressing; a block translated again
 * finds its slot) */
typedef struct Block {
    uint64_t vaddr, execs;
    size_t insns;
} Block;
#define NBLOCKS (1u << 20)
static Block *table;

static Block *block_at(uint64_t vaddr, size_t insns) {
    size_t h = (size_t)((vaddr * 0x9E3779B97F4A7C15ull) >> 44) & (NBLOCKS - 1), k;
    for (k = 0; k < NBLOCKS; k++, h = (h + 1) & (NBLOCKS - 1)) {
        Block *b = &table[h];
        if (b->insns == 0 || (b->vaddr == vaddr && b->insns == insns)) {
            b->vaddr = vaddr, b->insns = insns;
            return b;
        }
    }
    return NULL;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    if (blocks && table && n > 0) {
        Block *b = block_at(qemu_plugin_tb_vaddr(tb), n);
        if (b)
            qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
    }
    if (!exact) {
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, n);
        return;
    }
    for (i = 0; i < n; i++)
        qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i),
                                                   QEMU_PLUGIN_INLINE_ADD_U64, &count, 1);
}

static void on_atexit(qemu_plugin_id_t id, void *userdata) {
    FILE *f = outfile[0] ? fopen(outfile, "w") : stderr;
    (void)id, (void)userdata;
    if (!f) {
        fprintf(stderr, "insn_count: cannot write %s\n", outfile);
        return;
    }
    fprintf(f, "insns %llu\n", (unsigned long long)count);
    if (blocks && table)
        for (size_t i = 0; i < NBLOCKS; i++)
            if (table[i].execs)
                fprintf(f, "tb %llu %zu %llu\n", (unsigned long long)table[i].vaddr,
                        table[i].insns, (unsigned long long)table[i].execs);
    if (f != stderr)
        fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv) {
    int i;
    (void)info;
    for (i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "outfile=", 8) && strlen(argv[i] + 8) < sizeof outfile)
            strcpy(outfile, argv[i] + 8);
        else if (!strcmp(argv[i], "exact=on"))
            exact = 1;
        else if (!strcmp(argv[i], "blocks=on"))
            blocks = 1;
        else if (strcmp(argv[i], "exact=off") && strcmp(argv[i], "blocks=off")) {
            fprintf(stderr, "insn_count: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (blocks && !(table = calloc(NBLOCKS, sizeof *table))) {
        fprintf(stderr, "insn_count: out of memory for blocks=on\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
    return 0;
}
