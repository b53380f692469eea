# onnx2c-config.cmake — find_package(onnx2c): the imported executables onnx2c::onnx2c,
# onnx2c::onnx2c-test, onnx2c::onnx2c-run and the function onnx2c_add_model
# (onnx2c-functions.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/onnx2c-targets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/onnx2c-functions.cmake")
