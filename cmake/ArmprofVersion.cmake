# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofVersion.cmake: reads ARMPROF_VERSION (MAJOR.MINOR.PATCH) from capi/armprof/version.h, before project().
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../capi/armprof/version.h _armprof_vlines
  REGEX "^#define ARMPROF_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "ARMPROF_VERSION_${_part} ([0-9]+)" _m "${_armprof_vlines}")
  if(NOT _m)
    message(FATAL_ERROR "capi/armprof/version.h: no ARMPROF_VERSION_${_part}")
  endif()
  set(ARMPROF_VERSION_${_part} ${CMAKE_MATCH_1})
endforeach()
set(ARMPROF_VERSION "${ARMPROF_VERSION_MAJOR}.${ARMPROF_VERSION_MINOR}.${ARMPROF_VERSION_PATCH}")
string(REGEX MATCH "ARMPROF_VERSION_STRING \"([^\"]*)\"" _m "${_armprof_vlines}")
if(NOT CMAKE_MATCH_1 STREQUAL ARMPROF_VERSION)
  message(FATAL_ERROR "capi/armprof/version.h: ARMPROF_VERSION_STRING \"${CMAKE_MATCH_1}\" is not ${ARMPROF_VERSION}")
endif()
# The SONAME changes when the C ABI does: MAJOR from 1.0 on; while MAJOR is 0, every MINOR
# release may break it, so the SONAME is libarmprof.so.0.MINOR.
if(ARMPROF_VERSION_MAJOR EQUAL 0)
  set(ARMPROF_SOVERSION "0.${ARMPROF_VERSION_MINOR}")
else()
  set(ARMPROF_SOVERSION "${ARMPROF_VERSION_MAJOR}")
endif()
