# templates_alone.cmake — every templates/*.c compiles on its own (docs/writing-ops.md): its
# `#ifndef O2C_TEMPLATE` block includes what the emitter adds before it (compiler/emit.c reads
# the same lines), under the contract's strict flags.  Unused static functions are expected in
# a file of kernels alone.  On x86-64 each is compiled a second time with the AVX-512 flags the
# int8 and vector paths test for, so their intrinsics are type-checked too.
#   cmake -DCC=gcc -DSRC=<source dir> -DX86=1 -P tests/templates_alone.cmake
file(GLOB templates ${SRC}/templates/*.c)
set(flags -std=c99 -Wall -Wextra -pedantic -Werror -Wno-unused-function)
set(variants "plain")
if(X86)
  list(APPEND variants "avx512")
endif()
set(failed 0)
set(count 0)
foreach(t ${templates})
  foreach(v ${variants})
    set(extra "")
    if(v STREQUAL "avx512")
      set(extra -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mavx512vbmi -mavx512vbmi2 -mfma)
    endif()
    execute_process(COMMAND ${CC} ${flags} ${extra} -c -o /dev/null -I${SRC}/templates ${t}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    math(EXPR count "${count} + 1")
    if(NOT rc EQUAL 0)
      get_filename_component(n ${t} NAME)
      string(REGEX MATCH "[^\n]*error[^\n]*" first "${err}")
      message("FAIL ${n} (${v}): ${first}")
      math(EXPR failed "${failed} + 1")
    endif()
  endforeach()
endforeach()
math(EXPR passed "${count} - ${failed}")
message("${passed} passed, ${failed} failed")
if(failed GREATER 0)
  message(FATAL_ERROR "templates that do not compile alone: ${failed}")
endif()
