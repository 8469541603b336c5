// The inverse of folder_name: which ATen operator a kernel folder names.
// "relu" is aten::relu, "add__Tensor" aten::add.Tensor, "add___Tensor"
// aten::add_.Tensor, "relu__default" (BackendBench's current spelling)
// aten::relu. Operator names have underscores of their own
// (`_softmax`, `native_layer_norm`, `__and__`), so every split at a "__" is
// tried and the dispatcher decides which operator exists.
#pragma once

#include <optional>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>

namespace backendbench::kernels {

struct FolderOperator {
  std::optional<c10::OperatorHandle> op;  // set when exactly one operator matches
  std::string error;                      // why not, otherwise
};

FolderOperator operator_for_folder(const std::string& folder);

}  // namespace backendbench::kernels
