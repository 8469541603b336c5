// Reading the real tensor values of stored samples (OpInfo samples exported by
// python/backendbench/opinfo_export.py): a sample file is a torch.save'd list
// of samples, each a list of 1-D CPU tensors, the storage spans of the
// sample's tensors in argument order, read natively with torch::jit::pickle_load.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace backendbench::inputs {

// The spans of sample `index` of `file`. Files are kept once read (a few, the
// most recent), as each test reads its sample two or three times. Throws
// std::runtime_error naming the file when it cannot be read or has no such sample.
std::vector<at::Tensor> stored_sample(const std::string& file, size_t index);

}  // namespace backendbench::inputs
