#!/usr/bin/env bash
# Installs what is missing, then configures and builds backendbench into build/
# and makes `import backendbench` work for $PYTHON.
#   scripts/setup.sh          the tool, the plugins it loads (Python kernels, the
#                             override library) and the Python module: what a run needs
#   scripts/setup.sh --tests  that, plus GoogleTest, pytest and Chromium (the HTML
#                             reports' browser tests) and every test binary
# Safe to run again: every step checks first and the build is incremental.
#   BUILD_DIR=...   build folder (default: build)
#   BUILD_TYPE=...  CMake build type (default: Release)
#   BACKENDBENCH_WERROR=ON  warnings are errors (CI sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
case "${1:-}" in
  --tests) tests=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac
BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
PYTHON=${PYTHON:-python3}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. PyTorch: its headers, libtorch and CMake config are what we build against.
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "setup: installing torch==2.13.0"
  "$PYTHON" -m pip install torch==2.13.0
fi

# torch's OpInfo database (--suite opinfo) imports expecttest, a pure-Python test helper.
if ! "$PYTHON" -c 'import expecttest' 2>/dev/null; then
  echo "setup: installing expecttest"
  "$PYTHON" -m pip install expecttest
fi

# pytest runs the Python tests (registered with CTest).
if [ $tests = 1 ] && ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
  echo "setup: installing pytest"
  "$PYTHON" -m pip install pytest
fi

# 2. Libraries and tools from Debian, only those that are missing.
missing=()
have_file() { compgen -G "$1" >/dev/null; }
have_file /usr/include/CLI/CLI.hpp || missing+=(libcli11-dev)
have_file /usr/include/nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_file '/usr/include/*/curl/curl.h' || have_file /usr/include/curl/curl.h \
  || missing+=(libcurl4-openssl-dev)
have_gtest() { have_file '/usr/lib/*/cmake/GTest/GTestConfig.cmake' || have_file '/usr/lib/cmake/GTest/GTestConfig.cmake'; }
[ $tests = 0 ] || have_gtest || missing+=(libgtest-dev)
have_file '/usr/lib/*/openmpi/include/mpi.h' || have_file '/usr/include/*/openmpi/mpi.h' \
  || missing+=(libopenmpi-dev)
command -v mpirun >/dev/null || missing+=(openmpi-bin)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
# The kernel sandbox's seccomp filter (src/workers/sandbox.h).
have_file /usr/include/seccomp.h || missing+=(libseccomp-dev)
# The HTML reports' browser tests: Chromium renders them, zlib reads the screenshots.
if [ $tests = 1 ]; then
  command -v chromium >/dev/null || missing+=(chromium)
  have_file /usr/include/zlib.h || missing+=(zlib1g-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# 3. Configure (once, and again after installing packages so CMake finds them) and build.
TORCH_PREFIX=$("$PYTHON" -c 'import torch; print(torch.utils.cmake_prefix_path)')
# The tests are configured once GoogleTest is there (command 2 installs it).
with_tests=OFF
have_gtest && with_tests=ON
configured_tests=$(sed -n 's/^BACKENDBENCH_BUILD_TESTS:BOOL=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ ${#missing[@]} -gt 0 ] || [ "$configured_tests" != "$with_tests" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "${launcher[@]}" \
    -DBACKENDBENCH_WERROR="${BACKENDBENCH_WERROR:-OFF}" \
    -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" -DPython3_EXECUTABLE="$(command -v "$PYTHON")" \
    -DBACKENDBENCH_BUILD_TESTS="$with_tests"
fi
if [ $tests = 1 ]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)"
else
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target backendbench_runtime
fi

# 4. `import backendbench` for this Python: the source tree's python/ folder on
# its path (a .pth file in site-packages); the package finds its compiled
# module in the build folder. `pip install .` installs it as a package instead.
if [ -f "$BUILD_DIR/build.ninja" ] && compgen -G "$BUILD_DIR/python/backendbench/_C*.so" >/dev/null; then
  pth_dir=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  [ -w "$pth_dir" ] || pth_dir=$("$PYTHON" -c 'import site; print(site.getusersitepackages())')
  pth_line="$(pwd)/python"
  if [ "$(cat "$pth_dir/backendbench.pth" 2>/dev/null)" != "$pth_line" ]; then
    mkdir -p "$pth_dir" && echo "$pth_line" >"$pth_dir/backendbench.pth"
    echo "setup: import backendbench now finds $pth_line ($pth_dir/backendbench.pth)"
  fi
  if [ "$BUILD_DIR" != build ]; then echo "setup: set BACKENDBENCH_BUILD_DIR=$BUILD_DIR for import backendbench"; fi
fi
