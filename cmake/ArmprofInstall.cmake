# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofInstall.cmake: `cmake --install build --prefix P`: headers, libraries, tools, man pages, CMake package, pkg-config files, examples and docs, in install components.
#
# Everything installed is relocatable (the CMake package and the .pc files find the prefix from
# their own location) and names no path of the source or build tree (tests/install checks it).
# Libraries go to lib/<multiarch> on a multiarch system (ArmprofLibraries.cmake), as debhelper
# installs them.
#
# Every install rule names its component; each component is one Debian package
# (cmake/ArmprofPackage.cmake, which refuses a component no package takes):
#   lib          libarmprof.so.<SOVERSION>                                  libarmprof<SOVERSION>
#   dev          C headers, libarmprof.so, libarmprof.a, armprof.pc, the
#                CMake package                                              libarmprof-dev
#   systemc      libarmprof-systemc.so.<SOVERSION>                          libarmprof-systemc<SOVERSION>
#   systemc_dev  C++ headers, libarmprof-systemc.so, armprof-systemc.pc,
#                its CMake targets                                          libarmprof-systemc-dev
#   tools        the programs and their man pages, the docs, the examples   armprof
include(CMakePackageConfigHelpers)
set(ARMPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/armprof)
set(ARMPROF_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/armprof)

# The C API: headers, libarmprof.so.<SOVERSION> (+ the dev symlink) and libarmprof.a.
install(FILES ${ARMPROF_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof COMPONENT dev)
install(TARGETS armprof_shared armprof_static EXPORT armprofTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT armprofTargets NAMESPACE armprof:: DESTINATION ${ARMPROF_CMAKE_DIR} COMPONENT dev)

# The SystemC library and its headers under <armprof/systemc/...>.
if(ARMPROF_HAVE_SYSTEMC_LIB)
  file(GLOB _ap_sc_headers ${PROJECT_SOURCE_DIR}/platform/*.h)
  install(FILES ${_ap_sc_headers}
    ${PROJECT_SOURCE_DIR}/tools/workload/workload.h ${PROJECT_SOURCE_DIR}/tools/workload/trace_file.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof/systemc COMPONENT systemc_dev)
  install(FILES ${PROJECT_SOURCE_DIR}/platform/rtl/spu_rtl.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armprof/systemc/rtl COMPONENT systemc_dev)
  install(TARGETS armprof_systemc EXPORT armprofSystemcTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT systemc NAMELINK_COMPONENT systemc_dev)
  install(EXPORT armprofSystemcTargets NAMESPACE armprof:: DESTINATION ${ARMPROF_CMAKE_DIR} COMPONENT systemc_dev)
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
  ${PROJECT_BINARY_DIR}/generated/armprofConfigVersion.cmake DESTINATION ${ARMPROF_CMAKE_DIR} COMPONENT dev)

# pkg-config: armprof.pc, armprof-systemc.pc; prefix is found from the .pc file's own folder.
file(RELATIVE_PATH ARMPROF_PC_PREFIX_REL /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/armprof.pc.in ${PROJECT_BINARY_DIR}/generated/armprof.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/armprof.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
if(ARMPROF_HAVE_SYSTEMC_LIB)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/armprof-systemc.pc.in
    ${PROJECT_BINARY_DIR}/generated/armprof-systemc.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/generated/armprof-systemc.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT systemc_dev)
endif()

# The tools (statically linked to the units) and their man pages, made by help2man from --help
# and compressed as Debian wants them (gzip -9n: no name or time stamp in the file). A program
# added to the tools is one line here: its target and what it does.
set(_ap_tool_armprof-run "run a synthetic workload through the C-level SPE/TRBE models")
set(_ap_tool_armprof-decode "decode SPE Profiling Buffer dumps and export them to perf.data")
set(_ap_tool_armprof-explore "design-space sweeps over the armprof models and platform")
set(_ap_tool_armprof-vp "the armprof SystemC/TLM-2.0 virtual platform")
set(_ap_tool_armprof-cosim "lockstep co-simulation of the SPU's Verilated RTL against the C model")
find_program(HELP2MAN help2man)
find_program(ARMPROF_GZIP gzip)
if(NOT HELP2MAN OR NOT ARMPROF_GZIP)
  message(WARNING "help2man or gzip not found (scripts/install-deps.sh installs them): no man pages")
endif()
set(_ap_man)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/man)
foreach(t armprof-run armprof-decode armprof-explore armprof-vp armprof-cosim)
  if(NOT TARGET ${t})
    continue()
  endif()
  install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  if(HELP2MAN AND ARMPROF_GZIP)
    set(_m ${PROJECT_BINARY_DIR}/man/${t}.1)
    add_custom_command(OUTPUT ${_m}.gz
      COMMAND ${CMAKE_COMMAND} -E env SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
        ${HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
        "--name=${_ap_tool_${t}}" --output=${_m} $<TARGET_FILE:${t}>
      COMMAND ${ARMPROF_GZIP} -9nf ${_m}
      DEPENDS ${t} VERBATIM COMMENT "help2man ${t}.1")
    list(APPEND _ap_man ${_m}.gz)
  endif()
endforeach()
if(_ap_man)
  add_custom_target(armprof_man ALL DEPENDS ${_ap_man})
  install(FILES ${_ap_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
endif()

# Examples and docs, and the licence terms (the DEP-5 copyright file the packages carry).
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/cmake/debian/copyright
  DESTINATION ${ARMPROF_DOC_DIR} COMPONENT tools)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${ARMPROF_DOC_DIR} COMPONENT tools)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${ARMPROF_DOC_DIR}/examples COMPONENT tools)
