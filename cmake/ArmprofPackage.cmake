# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofPackage.cmake: `make package` (cpack -G DEB): one Debian package per install component, split as Debian ships libraries, under /usr.
#
#   libarmprof<SOVERSION>            libarmprof.so.<SOVERSION>            (component lib)
#   libarmprof-systemc<SOVERSION>    libarmprof-systemc.so.<SOVERSION>    (component systemc)
#   libarmprof-dev                   C headers, libarmprof.so, libarmprof.a, armprof.pc, the CMake package (dev)
#   libarmprof-systemc-dev           C++ headers, libarmprof-systemc.so, armprof-systemc.pc (systemc_dev)
#   armprof                          the tools, their man pages, the docs and examples (tools)
#   libarmprof-engine<SOVERSION>     libarmprof-engine.so.<SOVERSION>     (component engine)
#   python3-armprof                  the Python package (python)
#
# Each is <name>_<version>_<arch>.deb in the build folder. The runtime packages are named after
# their SONAMEs and activate the ldconfig trigger; every package carries the DEP-5 copyright file
# (cmake/debian/copyright) and the changelog (cmake/debian/changelog.in) in /usr/share/doc/<name>.
# A further package is one armprof_deb_package() call below for the install component that
# holds its files; an install component no package takes stops the configuration.
#
# Set at configure time:
#   -DARMPROF_DEB_MAINTAINER="Name <address>"  the Maintainer field and the changelog's signature
#                                              (default: $DEBFULLNAME <$DEBEMAIL> if both are
#                                              set, else a placeholder at armprof.invalid)
#   -DARMPROF_DEB_HOMEPAGE=URL                 the Homepage field (default: none)
# tests/install/check_lintian.sh runs Debian's lintian on the packages (ctest -L install).

set(ARMPROF_DEB_DIR ${PROJECT_BINARY_DIR}/deb)
file(MAKE_DIRECTORY ${ARMPROF_DEB_DIR})

if(DEFINED ENV{DEBFULLNAME} AND DEFINED ENV{DEBEMAIL})
  set(_ap_maint_default "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
else()
  set(_ap_maint_default "armprof packagers <packagers@armprof.invalid>")
endif()
set(ARMPROF_DEB_MAINTAINER "${_ap_maint_default}" CACHE STRING "Maintainer of the .deb packages: Name <address>")
set(ARMPROF_DEB_HOMEPAGE "" CACHE STRING "Homepage field of the .deb packages (empty: none)")
if(NOT ARMPROF_DEB_MAINTAINER MATCHES "^[^<>@]+ <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>$")
  message(FATAL_ERROR "ARMPROF_DEB_MAINTAINER is '${ARMPROF_DEB_MAINTAINER}': it must read 'Name <user@host.domain>'")
endif()

# The changelog (Debian's format; the package is native: no Debian revision) and the trigger
# file of the runtime library packages.
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${ARMPROF_DEB_DIR}/changelog @ONLY)
add_custom_command(OUTPUT ${ARMPROF_DEB_DIR}/changelog.gz
  COMMAND ${ARMPROF_GZIP} -9nc changelog > changelog.gz
  DEPENDS ${ARMPROF_DEB_DIR}/changelog WORKING_DIRECTORY ${ARMPROF_DEB_DIR} VERBATIM)
add_custom_target(armprof_deb_changelog ALL DEPENDS ${ARMPROF_DEB_DIR}/changelog.gz)
file(WRITE ${ARMPROF_DEB_DIR}/triggers "activate-noawait ldconfig\n")

set(CPACK_COMPONENTS_ALL)
# armprof_deb_package(<component> NAME <package> SECTION <section> [SHARED_LIBRARY]
#                     [DEPENDS <dep>...] [RECOMMENDS ...] [SUGGESTS ...]
#                     DESCRIPTION <synopsis> <line>... )
# DESCRIPTION: the synopsis (under 80 characters), then the extended description's lines (each
# under 80 characters; "." separates paragraphs). SHARED_LIBRARY: a runtime library package
# (shlibs file, ldconfig trigger). Dependencies on shared libraries are found by dpkg-shlibdeps.
macro(armprof_deb_package component)
  cmake_parse_arguments(_p "SHARED_LIBRARY" "NAME;SECTION" "DEPENDS;RECOMMENDS;SUGGESTS;DESCRIPTION" ${ARGN})
  string(TOUPPER ${component} _c)
  list(APPEND CPACK_COMPONENTS_ALL ${component})
  set(CPACK_DEBIAN_${_c}_PACKAGE_NAME ${_p_NAME})
  set(CPACK_DEBIAN_${_c}_PACKAGE_SECTION ${_p_SECTION})
  set(CPACK_DEBIAN_${_c}_FILE_NAME DEB-DEFAULT)
  list(JOIN _p_DEPENDS ", " CPACK_DEBIAN_${_c}_PACKAGE_DEPENDS)
  list(JOIN _p_RECOMMENDS ", " CPACK_DEBIAN_${_c}_PACKAGE_RECOMMENDS)
  list(JOIN _p_SUGGESTS ", " CPACK_DEBIAN_${_c}_PACKAGE_SUGGESTS)
  list(TRANSFORM _p_DESCRIPTION REPLACE "^\\.$" "")
  list(JOIN _p_DESCRIPTION "\n" CPACK_DEBIAN_${_c}_DESCRIPTION)
  set(CPACK_DEBIAN_${_c}_PACKAGE_SHLIBDEPS ON)
  if(_p_SHARED_LIBRARY)
    set(CPACK_DEBIAN_${_c}_PACKAGE_CONTROL_EXTRA ${ARMPROF_DEB_DIR}/triggers)
  endif()
  # /usr/share/doc/<package>: copyright and changelog.gz, in the package only (the tools'
  # folder is the docs' own, which every install has, with the copyright file).
  if(NOT _p_NAME STREQUAL "armprof")
    install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright
      DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_p_NAME} COMPONENT ${component} EXCLUDE_FROM_ALL)
  endif()
  install(FILES ${ARMPROF_DEB_DIR}/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_p_NAME} COMPONENT ${component} EXCLUDE_FROM_ALL)
endmacro()

set(_ap_v ${PROJECT_VERSION})
set(_ap_about
  "armprof models three Arm profiling units for virtual platforms: the"
  "Statistical Profiling Unit with its Profiling Buffer (SPE), the Trace"
  "Buffer Unit (TRBE), and PMU snapshots (FEAT_PMUv3_SS) with the PMU"
  "counters they save.")

armprof_deb_package(lib NAME libarmprof${ARMPROF_SOVERSION} SECTION libs SHARED_LIBRARY
  DESCRIPTION "models of the Arm SPE, TRBE and PMU-snapshot units (C library)" ${_ap_about} "."
  "This package contains the shared library libarmprof, the units' C API.")
armprof_deb_package(dev NAME libarmprof-dev SECTION libdevel
  DEPENDS "libarmprof${ARMPROF_SOVERSION} (= ${_ap_v})" "libarmprof-engine${ARMPROF_SOVERSION} (= ${_ap_v})"
  SUGGESTS "armprof (= ${_ap_v})" "pkgconf | pkg-config" "cmake (>= 3.20)"
  DESCRIPTION "models of the Arm SPE, TRBE and PMU-snapshot units (development files)" ${_ap_about} "."
  "This package contains the C headers (armprof/spu.h, armprof/sysreg.h, ...),"
  "the static library, the CMake package (find_package(armprof)) and armprof.pc.")
if(ARMPROF_HAVE_SYSTEMC_LIB)
  armprof_deb_package(systemc NAME libarmprof-systemc${ARMPROF_SOVERSION} SECTION libs SHARED_LIBRARY
    DEPENDS "libarmprof${ARMPROF_SOVERSION} (= ${_ap_v})"
    DESCRIPTION "SystemC/TLM-2.0 modules of the armprof profiling-unit models" ${_ap_about} "."
    "This package contains the shared library libarmprof-systemc: the units as"
    "SystemC modules, and an SMMU, a bus, memory, an interrupt controller and"
    "driver agents around them.")
  armprof_deb_package(systemc_dev NAME libarmprof-systemc-dev SECTION libdevel
    DEPENDS "libarmprof-systemc${ARMPROF_SOVERSION} (= ${_ap_v})" "libarmprof-dev (= ${_ap_v})"
      "libsystemc-dev (>= 2.3.4)" "pkgconf | pkg-config"
    SUGGESTS "armprof (= ${_ap_v})"
    DESCRIPTION "SystemC/TLM-2.0 modules of the armprof units (development files)" ${_ap_about} "."
    "This package contains the C++ headers (armprof/systemc/spu_module.h, ...),"
    "armprof-systemc.pc and the CMake targets of libarmprof-systemc (C++17).")
endif()
armprof_deb_package(tools NAME armprof SECTION devel
  RECOMMENDS "gnuplot-nox | gnuplot"
  SUGGESTS "libarmprof-dev" "linux-perf"
  DESCRIPTION "run, decode and size the armprof profiling-unit models" ${_ap_about} "."
  "This package contains armprof-run (the units at C level), armprof-vp (a"
  "SystemC virtual platform), armprof-decode (SPE buffers, to text and"
  "perf.data) and armprof-explore (buffer and FIFO sizing sweeps), with the"
  "documentation and the examples (among them the integration examples for"
  "libarmprof-dev).")

if(TARGET armprof_engine)
  armprof_deb_package(engine NAME libarmprof-engine${ARMPROF_SOVERSION} SECTION libs SHARED_LIBRARY
    DEPENDS "libarmprof${ARMPROF_SOVERSION} (= ${_ap_v})"
    DESCRIPTION "engine of the armprof run and sweep tools (C library)" ${_ap_about} "."
    "This package contains the shared library libarmprof-engine: scenarios and"
    "design-space sweeps over the C models, and decoding into columns"
    "(armprof/engine.h), as the Python package uses them.")
endif()
armprof_deb_package(python NAME python3-armprof SECTION python
  DEPENDS "libarmprof-engine${ARMPROF_SOVERSION} (= ${_ap_v})" "python3 (>= 3.9)" "python3-cffi-backend" "python3-numpy" "python3-pandas"
  RECOMMENDS "python3-matplotlib" "python3-tqdm" "python3-yaml"
  SUGGESTS "jupyter-nbconvert" "python3-ipykernel"
  DESCRIPTION "armprof profiling-unit models for Python 3" ${_ap_about} "."
  "This package contains the armprof Python package (import armprof): SPE"
  "buffers decoded into pandas DataFrames, scenarios and design-space sweeps"
  "over the C models and the SystemC platform, and a unit driven over the C"
  "API, with libarmprof-engine, the engine behind armprof-run and"
  "armprof-explore.")

# Every install component is in a package.
get_cmake_property(_ap_components COMPONENTS)
foreach(_c ${_ap_components})
  if(NOT _c IN_LIST CPACK_COMPONENTS_ALL)
    message(FATAL_ERROR "install component '${_c}' is in no Debian package: add an armprof_deb_package() call "
      "to cmake/ArmprofPackage.cmake or install its files with an existing COMPONENT")
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGE_NAME armprof)
set(CPACK_PACKAGE_VENDOR armprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SOURCE armprof)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ARMPROF_DEB_MAINTAINER}")
if(ARMPROF_DEB_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ARMPROF_DEB_HOMEPAGE}")
endif()
# dpkg-shlibdeps finds libarmprof.so.0.x, which libarmprof-systemc needs, in the build tree; the
# dependency on its package is the explicit one above.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_STRIP_FILES ON)
# CPack's DEB generator writes postinst/postrm scripts that call ldconfig for any package with a
# shared library; Debian uses the ldconfig trigger instead (the `triggers` file above). The
# script takes those two out of the finished packages with dpkg-deb.
find_program(ARMPROF_DPKG_DEB dpkg-deb)
set(CPACK_ARMPROF_DPKG_DEB "${ARMPROF_DPKG_DEB}")
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/debian/drop-ldconfig-scripts.cmake)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")
include(CPack)
