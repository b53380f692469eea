@ loop.S — a bare-metal Cortex-M program that executes exactly 2 * LOOPS + 4 instructions
@ (build.sh checks the plugin's count against it): LOOPS iterations of subs + bne between one
@ load before and the three instructions of the semihosting exit after.
    .syntax unified
    .thumb
    .text
    .global reset
vectors:                        @ at address 0: initial SP, reset vector
    .word 0x20001000
    .word reset + 1
    .thumb_func
reset:
    ldr r0, =LOOPS              @ 1
1:  subs r0, r0, #1             @ 2 per iteration
    bne 1b
    movs r0, #0x18              @ SYS_EXIT
    ldr r1, =0x20026            @ ADP_Stopped_ApplicationExit
    bkpt 0xab                   @ 3: QEMU exits with status 0
    .pool
