#pragma once

#include <string>

#include <c10/core/Device.h>

namespace backendbench::cli {

// Shared by the subcommands.

// "" -> cuda:0 when CUDA is available, else cpu; "cuda" without CUDA is a UsageError.
c10::Device choose_device(const std::string& requested);

// The dataset the project ships: $BACKENDBENCH_DATA_DIR/torchbench/dataset.json,
// the source tree's data/ by default. A UsageError when it is missing.
std::string shipped_dataset();

}  // namespace backendbench::cli
