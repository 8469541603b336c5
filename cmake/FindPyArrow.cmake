# Finds the Arrow and Parquet C++ libraries that the pyarrow wheel ships, so
# that parquet support needs no separate Arrow install.
#   PyArrow_FOUND                      headers and both libraries found
#   PyArrow::arrow, PyArrow::parquet   imported targets
# The Python is Python3_EXECUTABLE when set, else python3 on PATH. Needs
# pyarrow >= 19 (the Result-returning reader API the loader uses); wheels from
# 13 on are built with the C++11 string ABI, like torch and this project.

set(PyArrow_FOUND FALSE)
set(_pyarrow_python "${Python3_EXECUTABLE}")
if(NOT _pyarrow_python)
  find_program(_pyarrow_python_path NAMES python3)
  set(_pyarrow_python "${_pyarrow_python_path}")
endif()

set(_pyarrow_why "no python3 found")
if(_pyarrow_python)
  execute_process(
    COMMAND "${_pyarrow_python}" -c
      "import pyarrow; print(pyarrow.__version__); print(pyarrow.get_include()); print(pyarrow.get_library_dirs()[0])"
    OUTPUT_VARIABLE _pyarrow_out RESULT_VARIABLE _pyarrow_rc
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_pyarrow_why "${_pyarrow_python} cannot import pyarrow")
endif()

if(_pyarrow_python AND _pyarrow_rc EQUAL 0)
  string(REPLACE "\n" ";" _pyarrow_out "${_pyarrow_out}")
  list(GET _pyarrow_out 0 PyArrow_VERSION)
  list(GET _pyarrow_out 1 _pyarrow_include)
  list(GET _pyarrow_out 2 _pyarrow_libdir)
  # The wheel ships libarrow.so.NNNN, not always the unversioned link; the
  # versioned name without a minor suffix is the SONAME the loader looks for.
  file(GLOB _pyarrow_arrow "${_pyarrow_libdir}/libarrow.so.[0-9]*")
  file(GLOB _pyarrow_parquet "${_pyarrow_libdir}/libparquet.so.[0-9]*")
  list(FILTER _pyarrow_arrow EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
  list(FILTER _pyarrow_parquet EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
  if(PyArrow_VERSION VERSION_LESS 19)
    set(_pyarrow_why "pyarrow ${PyArrow_VERSION} is older than 19")
  elseif(NOT EXISTS "${_pyarrow_include}/arrow/api.h"
         OR NOT EXISTS "${_pyarrow_include}/parquet/arrow/reader.h")
    set(_pyarrow_why "no Arrow/Parquet headers in ${_pyarrow_include}")
  elseif(NOT _pyarrow_arrow OR NOT _pyarrow_parquet)
    set(_pyarrow_why "no libarrow.so.N and libparquet.so.N in ${_pyarrow_libdir}")
  else()
    set(PyArrow_FOUND TRUE)
  endif()
endif()

if(PyArrow_FOUND)
  list(GET _pyarrow_arrow 0 _pyarrow_arrow)
  list(GET _pyarrow_parquet 0 _pyarrow_parquet)
  add_library(PyArrow::arrow SHARED IMPORTED)
  set_target_properties(PyArrow::arrow PROPERTIES
    IMPORTED_LOCATION "${_pyarrow_arrow}"
    INTERFACE_INCLUDE_DIRECTORIES "${_pyarrow_include}")
  add_library(PyArrow::parquet SHARED IMPORTED)
  set_target_properties(PyArrow::parquet PROPERTIES
    IMPORTED_LOCATION "${_pyarrow_parquet}"
    INTERFACE_LINK_LIBRARIES PyArrow::arrow)
  message(STATUS "Parquet support: pyarrow ${PyArrow_VERSION} (${_pyarrow_parquet})")
else()
  message(STATUS "Parquet support: off (${_pyarrow_why}); .parquet datasets yield a diagnostic")
endif()
