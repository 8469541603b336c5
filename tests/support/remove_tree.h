// Removes a folder and everything in it, for test clean-up.
//
// Not std::filesystem::remove_all: some torch wheels export a broken copy of
// it from libtorch.so that torch-linked test binaries bind to and crash in
// (seen with torch 2.11+cu130 on the GPU machines).
#pragma once

#include <ftw.h>
#include <stdio.h>

#include <filesystem>

namespace backendbench::testing {

inline void remove_tree(const std::filesystem::path& root) {
  nftw(
      root.c_str(),
      [](const char* path, const struct stat*, int, struct FTW*) {
        ::remove(path);  // keep going: clean-up removes what it can
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace backendbench::testing
