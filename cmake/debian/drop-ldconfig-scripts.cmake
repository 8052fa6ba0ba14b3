# SPDX-License-Identifier: Apache-2.0
# drop-ldconfig-scripts.cmake: CPack post-build script: takes CPack's ldconfig-calling postinst/postrm out of the .debs (the ldconfig trigger does that work), with dpkg-deb.
#
# CPack runs it after building the packages, with CPACK_PACKAGE_FILES naming them. A maintainer
# script is removed only when all it does is call ldconfig; anything else in it stays.
if(NOT CPACK_ARMPROF_DPKG_DEB)
  message(FATAL_ERROR "dpkg-deb not found (scripts/install-deps.sh installs dpkg-dev)")
endif()
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  set(dir "${deb}.d")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND ${CPACK_ARMPROF_DPKG_DEB} --raw-extract "${deb}" "${dir}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb --raw-extract ${deb} failed")
  endif()
  set(changed FALSE)
  foreach(script postinst postrm)
    set(f "${dir}/DEBIAN/${script}")
    if(EXISTS "${f}")
      file(STRINGS "${f}" lines)
      # What is left without the shebang, `set -e`, the `if [ "$1" = ... ]; then` / `fi` frame
      # and the ldconfig call itself.
      list(FILTER lines EXCLUDE REGEX "^#!|^[ \t]*$|^[ \t]*set -e[ \t]*$|^[ \t]*if .*then[ \t]*$|^[ \t]*fi[ \t]*$|^[ \t]*ldconfig[ \t]*$")
      if(lines STREQUAL "")
        file(REMOVE "${f}")
        set(changed TRUE)
      endif()
    endif()
  endforeach()
  if(changed)
    execute_process(COMMAND ${CPACK_ARMPROF_DPKG_DEB} --root-owner-group -Zxz --build "${dir}" "${deb}"
      OUTPUT_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "dpkg-deb --build ${deb} failed")
    endif()
  endif()
  file(REMOVE_RECURSE "${dir}")
endforeach()
