# onnx2c-functions.cmake — converting ONNX models at build time from a CMake project.
#
# Included by onnx2c-config.cmake (find_package(onnx2c)) and by onnx2c's own CMakeLists.txt
# (add_subdirectory of the source tree); either way onnx2c::onnx2c is the compiler.
#
#   onnx2c_add_model(<target> <model.onnx>
#                    [NAME <prefix>]           # onnx2c --name: the C prefix and the file stem
#                    [FIX <dim>=<value> ...]   # onnx2c --fix
#                    [MAX <dim>=<value> ...]   # onnx2c --max
#                    [OPTIONS <option> ...]    # more onnx2c options (--memory-first...)
#                    [WEIGHTS]                 # onnx2c --weights <stem>.bin, linked in
#                    [DEPENDS <file> ...])     # more inputs (external data files)
#
# Makes the static library <target> from the C onnx2c writes into
# ${CMAKE_CURRENT_BINARY_DIR}/onnx2c/<target>/<stem>.c and <stem>.h (<stem>: NAME, else the
# model file's name without its extension), with that folder as a PUBLIC include directory
# and libm linked.  The conversion re-runs when the model, a DEPENDS file or onnx2c changes.
# WEIGHTS: the weights go into the blob <stem>.bin in that folder (README "Big models: the
# weights blob"), and the library also holds <stem>.bin.S, which links the blob in as
# <stem>_weights (the project must enable the ASM language: project(... C ASM)); the program
# calls <stem>_run_w with it, or loads <stem>.bin itself.
# A relative model path is relative to CMAKE_CURRENT_SOURCE_DIR.
include_guard(GLOBAL)

function(onnx2c_add_model target model)
  cmake_parse_arguments(PARSE_ARGV 2 arg "WEIGHTS" "NAME" "FIX;MAX;OPTIONS;DEPENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "onnx2c_add_model(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET onnx2c::onnx2c)
    message(FATAL_ERROR "onnx2c_add_model(${target}): no onnx2c::onnx2c target "
                        "(find_package(onnx2c) or add_subdirectory of onnx2c first)")
  endif()
  get_filename_component(model "${model}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(arg_NAME)
    set(stem "${arg_NAME}")
  else()
    get_filename_component(stem "${model}" NAME_WLE)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/onnx2c/${target}")
  set(c_file "${dir}/${stem}.c")
  set(h_file "${dir}/${stem}.h")
  set(args "")
  set(blob_files "")
  if(arg_WEIGHTS)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "ASM" IN_LIST languages)
      message(FATAL_ERROR "onnx2c_add_model(${target}): WEIGHTS assembles <stem>.bin.S: enable "
                          "the ASM language first (project(... C ASM) or enable_language(ASM))")
    endif()
    set(blob_files "${dir}/${stem}.bin" "${dir}/${stem}.bin.S")
    list(APPEND args --weights "${dir}/${stem}.bin")
  endif()
  if(arg_NAME)
    list(APPEND args --name "${arg_NAME}")
  endif()
  foreach(setting IN LISTS arg_FIX)
    list(APPEND args --fix "${setting}")
  endforeach()
  foreach(setting IN LISTS arg_MAX)
    list(APPEND args --max "${setting}")
  endforeach()
  list(APPEND args ${arg_OPTIONS})
  add_custom_command(
    OUTPUT "${c_file}" "${h_file}" ${blob_files}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND onnx2c::onnx2c "${model}" -o "${c_file}" ${args}
    DEPENDS "${model}" onnx2c::onnx2c ${arg_DEPENDS}
    COMMENT "onnx2c ${stem}: ${model}"
    VERBATIM)
  if(arg_WEIGHTS)
    add_library(${target} STATIC "${c_file}" "${h_file}" "${dir}/${stem}.bin.S")
  else()
    add_library(${target} STATIC "${c_file}" "${h_file}")
  endif()
  target_include_directories(${target} PUBLIC "${dir}")
  if(UNIX)
    target_link_libraries(${target} PUBLIC m)
  endif()
endfunction()
