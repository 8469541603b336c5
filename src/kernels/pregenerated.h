// The `pregenerated` backend: kernels written ahead of time, laid out as
// BackendBench's `generate` and `evaluation_only/` lay them out:
//
//   DIR/<op>/<op>_attempt_N.py (.cpp, .cu) attempts of a generation run
//   DIR/<op>/metadata.txt                  optional: `successful_attempt: N`
//   DIR/<op>/<op>.py (.cpp, .cu)           a kernel written by hand
//
// <op> is the operator's folder name (`add__Tensor` for add.Tensor, see
// folder_name; `relu__default` is read too) or, as in BackendBench, its bare
// name (`add`). A bare-name native kernel serves every overload whose
// signature it matches; an overload it does not match simply does not use it.
// A bare-name Python kernel serves every overload of its name without a
// folder of its own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernels/compile.h"
#include "kernels/native_backend.h"

namespace backendbench::kernels {

// The attempt metadata.txt in `folder` records as the one that passed
// (a `successful_attempt: N` line; `passed_attempt` and `final_attempt` are
// read the same way), if any.
std::optional<int> recorded_attempt(const std::filesystem::path& folder);

// The kernel files for `stem` in `folder`, in the order they are tried: the
// recorded attempt, then the other attempts from the highest number down,
// then `<stem>.cpp` / `<stem>.cu` / `<stem>.py` (in that order where several exist).
std::vector<std::filesystem::path> kernel_candidates(const std::filesystem::path& folder, const std::string& stem);

class PregeneratedBackend : public NativeKernelBackend {
 public:
  // Throws std::invalid_argument when `directory` is not a folder.
  explicit PregeneratedBackend(std::filesystem::path directory, CompileSettings settings = default_compile_settings());
  std::string name() const override { return "pregenerated"; }

 protected:
  // The first candidate that compiles, loads and passes the schema check,
  // from the operator's own folder, else from its bare-name folder.
  LoadedKernel find_kernel(const c10::OperatorHandle& op) override;

 private:
  std::filesystem::path directory_;
  CompileSettings settings_;
};

}  // namespace backendbench::kernels
