# SPDX-License-Identifier: Apache-2.0
# tools/armprof-run/trbe.cmake: the TRBU driver of `armprof-run --trbe`, include()d by the lead's CMakeLists.
add_library(armprof_run_trbe STATIC ${CMAKE_CURRENT_LIST_DIR}/run_trbe.c)
target_include_directories(armprof_run_trbe PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(armprof_run_trbe PUBLIC armprof_trbu)
armprof_strict(armprof_run_trbe)
