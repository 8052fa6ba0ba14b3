# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofInstall.cmake: `cmake --install build --prefix P`: headers, libraries, tools, man pages, CMake package, pkg-config files, examples and docs.
#
# Everything installed is relocatable (the CMake package and the .pc files find the prefix from
# their own location) and names no path of the source or build tree (tests/install checks it).
include(CMakePackageConfigHelpers)
set(ARMPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/armprof)
set(ARMPROF_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/armprof)

# The C API: headers, libarmprof.so.<SOVERSION> (+ the dev symlink) and libarmprof.a.
install(FILES ${ARMPROF_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof)
install(TARGETS armprof_shared armprof_static EXPORT armprofTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT armprofTargets NAMESPACE armprof:: DESTINATION ${ARMPROF_CMAKE_DIR})

# The SystemC library and its headers under <armprof/systemc/...>.
if(ARMPROF_HAVE_SYSTEMC_LIB)
  file(GLOB _ap_sc_headers ${PROJECT_SOURCE_DIR}/platform/*.h)
  install(FILES ${_ap_sc_headers}
    ${PROJECT_SOURCE_DIR}/tools/workload/workload.h ${PROJECT_SOURCE_DIR}/tools/workload/trace_file.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof/systemc)
  install(FILES ${PROJECT_SOURCE_DIR}/platform/rtl/spu_rtl.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof/systemc/rtl)
  install(TARGETS armprof_systemc EXPORT armprofSystemcTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT armprofSystemcTargets NAMESPACE armprof:: DESTINATION ${ARMPROF_CMAKE_DIR})
endif()

# CMake package: find_package(armprof CONFIG [COMPONENTS C systemc static]).
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/armprofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/generated/armprofConfig.cmake INSTALL_DESTINATION ${ARMPROF_CMAKE_DIR})
# 0.x: a MINOR release may change the ABI (the SONAME is libarmprof.so.0.MINOR).
if(ARMPROF_VERSION_MAJOR EQUAL 0)
  set(_ap_compat SameMinorVersion)
else()
  set(_ap_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/armprofConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_ap_compat})
install(FILES ${PROJECT_BINARY_DIR}/generated/armprofConfig.cmake
  ${PROJECT_BINARY_DIR}/generated/armprofConfigVersion.cmake DESTINATION ${ARMPROF_CMAKE_DIR})

# pkg-config: armprof.pc, armprof-systemc.pc; prefix is found from the .pc file's own folder.
file(RELATIVE_PATH ARMPROF_PC_PREFIX_REL /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/armprof.pc.in ${PROJECT_BINARY_DIR}/generated/armprof.pc @ONLY)
set(_ap_pc ${PROJECT_BINARY_DIR}/generated/armprof.pc)
if(ARMPROF_HAVE_SYSTEMC_LIB)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/armprof-systemc.pc.in
    ${PROJECT_BINARY_DIR}/generated/armprof-systemc.pc @ONLY)
  list(APPEND _ap_pc ${PROJECT_BINARY_DIR}/generated/armprof-systemc.pc)
endif()
install(FILES ${_ap_pc} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The tools (statically linked to the units) and their man pages, made by help2man from --help.
set(_ap_tool_armprof-run "run a synthetic workload through the C-level SPE/TRBE models")
set(_ap_tool_armprof-decode "decode SPE Profiling Buffer dumps and export them to perf.data")
set(_ap_tool_armprof-explore "design-space sweeps over the armprof models and platform")
set(_ap_tool_armprof-vp "the armprof SystemC/TLM-2.0 virtual platform")
find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(WARNING "help2man not found (scripts/install-deps.sh installs it): no man pages")
endif()
set(_ap_man)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/man)
foreach(t armprof-run armprof-decode armprof-explore armprof-vp)
  if(NOT TARGET ${t})
    continue()
  endif()
  install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(HELP2MAN)
    set(_m ${PROJECT_BINARY_DIR}/man/${t}.1)
    add_custom_command(OUTPUT ${_m}
      COMMAND ${CMAKE_COMMAND} -E env SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
        ${HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
        "--name=${_ap_tool_${t}}" --output=${_m} $<TARGET_FILE:${t}>
      DEPENDS ${t} VERBATIM COMMENT "help2man ${t}.1")
    list(APPEND _ap_man ${_m})
  endif()
endforeach()
if(_ap_man)
  add_custom_target(armprof_man ALL DEPENDS ${_ap_man})
  install(FILES ${_ap_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# Examples and docs.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${ARMPROF_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${ARMPROF_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${ARMPROF_DOC_DIR}/examples)
