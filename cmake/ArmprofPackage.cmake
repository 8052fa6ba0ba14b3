# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofPackage.cmake: `make package` (cpack -G DEB): armprof_<version>_<arch>.deb of everything `cmake --install` installs, under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME armprof)
set(CPACK_PACKAGE_VENDOR armprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Models of the Arm SPE, TRBE and PMU-snapshot units for virtual platforms")
set(CPACK_PACKAGE_DESCRIPTION "C library (libarmprof) and SystemC/TLM-2.0 modules (libarmprof-systemc)
 modelling the Arm Statistical Profiling Extension, the Trace Buffer Extension and PMU
 snapshots, with headers, a CMake package, pkg-config files, the armprof tools and man pages.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)                  # armprof_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "armprof maintainers <armprof@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/armprof")
# Run-time libraries from dpkg-shlibdeps (libc6, libstdc++6, libsystemc, libcjson1, libfyaml0...);
# the headers of libarmprof-systemc include SystemC's and the CMake package finds SystemC through
# pkg-config, so building against the package needs those too.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsystemc-dev (>= 2.3.4), pkgconf | pkg-config")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot, cmake (>= 3.20)")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")
include(${CMAKE_CURRENT_LIST_DIR}/ArmprofPythonPackage.cmake)   # python3-armprof (install component python)
include(CPack)
