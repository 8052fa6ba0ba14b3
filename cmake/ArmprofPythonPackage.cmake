# SPDX-License-Identifier: Apache-2.0
# cmake/ArmprofPythonPackage.cmake: the Debian packaging of the Python package (install component `python`): python3-armprof when the .deb is split by component, else its dependencies recommended by the one .deb.
set(CPACK_COMPONENT_PYTHON_DISPLAY_NAME "armprof for Python 3")
set(CPACK_COMPONENT_PYTHON_DESCRIPTION "The armprof Python package (import armprof): decode SPE buffers into pandas
 DataFrames, run scenarios and design-space sweeps over the C models and the SystemC platform,
 and drive a unit over the C API, with libarmprof-engine.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-armprof)
set(CPACK_DEBIAN_PYTHON_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= 3.9), python3-cffi-backend, python3-numpy, python3-pandas")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-matplotlib, python3-tqdm, jupyter-nbconvert, python3-ipykernel")
if(NOT CPACK_DEB_COMPONENT_INSTALL)
  # One .deb holds everything: the Python package is in it, its modules recommended.
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", python3 (>= 3.9), python3-cffi-backend, python3-numpy, python3-pandas, python3-matplotlib, python3-tqdm")
endif()
