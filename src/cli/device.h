#pragma once

#include <string>

#include <c10/core/Device.h>

namespace backendbench::cli {

// "" -> cuda:0 when CUDA is available, else cpu; "cuda" without CUDA is a UsageError.
c10::Device choose_device(const std::string& requested);

}  // namespace backendbench::cli
