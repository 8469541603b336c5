// What a compiled kernel links against: the undefined dynamic symbols of its
// shared object (ELF .dynsym), demangled, and the ATen functions among them.
//
// A native kernel that calls at::native::relu, at::cpu::add or
// at::_ops::relu::redispatch bypasses the dispatcher, so no RecordFunction
// sees it; but it cannot call them without linking them, and the dynamic
// linker resolves them by these names. at::relu, torch::relu and x.relu() are
// inline and link at::_ops::relu::call.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace backendbench::observe {

// The undefined symbols of the ELF shared object's dynamic symbol table,
// demangled ("at::_ops::relu::call(at::Tensor const&)"). Throws
// std::runtime_error naming the file when it is not a readable 64-bit ELF file.
std::vector<std::string> undefined_symbols(const std::filesystem::path& library);

// An ATen function a kernel links: which namespace it comes from and the
// function's name in it.
struct LinkedFunction {
  enum class Route {
    ops_call,        // at::_ops::<op>::call: at::<op>, torch::<op>, Tensor::<op>
    ops_redispatch,  // at::_ops::<op>::redispatch
    kernel,          // at::native::, at::cpu::, at::cuda::, at::meta::, at::composite*:: (the kernels themselves)
    hides_calls,     // reaches ATen past the calls the checks see: at::enableRecordFunction (the observation
                     // off), c10::Dispatcher::findSchemaOrThrow (an operator looked up to redispatch it),
                     // at::native::DispatchStub<...>::AVX512, at::native::cpublas:: (ATen's kernels below its operators)
  };
  Route route;
  std::string name;    // "relu" (a C++ operator identifier: "add_Tensor", "add__Tensor") or the kernel function's name
  std::string symbol;  // the demangled symbol
};

// The ATen functions among `symbols` (undefined_symbols' output).
std::vector<LinkedFunction> linked_aten_functions(const std::vector<std::string>& symbols);

}  // namespace backendbench::observe
