#include "observe/linked_symbols.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace backendbench::observe {
namespace {

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// Reads a T at `offset` of `bytes`, or throws.
template <typename T>
T read_at(const std::string& bytes, uint64_t offset, const std::string& file) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) {
    throw std::runtime_error(file + ": truncated ELF file");
  }
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// "at::_ops::relu::call(at::Tensor const&)" -> "at::_ops::relu::call".
std::string_view without_parameters(std::string_view symbol) {
  const size_t paren = symbol.find('(');
  return paren == std::string_view::npos ? symbol : symbol.substr(0, paren);
}

// The namespaces whose functions are ATen's kernels (at::cpu::add, ...).
constexpr std::string_view kKernelNamespaces[] = {
    "at::native::", "at::cpu::", "at::cuda::", "at::meta::", "at::compositeexplicitautograd::",
    "at::compositeexplicitautogradnonfunctional::", "at::compositeimplicitautograd::",
};

// Functions that switch the observation of ATen calls off or remove its callback, or that look an
// operator up to call it past the functions its calls are seen through (a redispatch to one key).
constexpr std::string_view kHiding[] = {
    "at::enableRecordFunction", "at::removeCallback", "at::disableCallback", "at::clearCallbacks",
    "at::clearGlobalCallbacks", "at::clearThreadLocalCallbacks", "at::set_record_function_tls_",
    "c10::Dispatcher::findSchema", "c10::Dispatcher::findSchemaOrThrow", "c10::Dispatcher::findOp",
    "c10::Dispatcher::findOrRegisterName",
};

// ATen's kernels reached below its operators: the per-CPU-capability function
// pointers of its DispatchStubs (add_stub's AVX512 kernel) and its CPU BLAS.
bool atens_internal_kernel(std::string_view qualified) {
  return qualified.starts_with("at::native::DispatchStub") || qualified.starts_with("at::native::cpublas::") ||
         (qualified.starts_with("at::native::") && qualified.ends_with("_stub"));
}

}  // namespace

std::vector<std::string> undefined_symbols(const std::filesystem::path& library) {
  const std::string file = library.string();
  std::ifstream in(library, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + file);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto header = read_at<Elf64_Ehdr>(bytes, 0, file);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    throw std::runtime_error(file + ": not a 64-bit ELF file");
  }
  std::vector<std::string> symbols;
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    const auto section = read_at<Elf64_Shdr>(bytes, header.e_shoff + uint64_t{i} * header.e_shentsize, file);
    if (section.sh_type != SHT_DYNSYM || section.sh_entsize == 0) continue;
    const auto strings =
        read_at<Elf64_Shdr>(bytes, header.e_shoff + uint64_t{section.sh_link} * header.e_shentsize, file);
    for (uint64_t offset = 0; offset + section.sh_entsize <= section.sh_size; offset += section.sh_entsize) {
      const auto symbol = read_at<Elf64_Sym>(bytes, section.sh_offset + offset, file);
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name == 0) continue;
      const uint64_t at = strings.sh_offset + symbol.st_name;
      if (at >= bytes.size()) throw std::runtime_error(file + ": truncated ELF string table");
      const size_t length = strnlen(bytes.data() + at, bytes.size() - at);
      symbols.push_back(demangle(std::string(bytes.data() + at, length).c_str()));
    }
  }
  return symbols;
}

std::vector<LinkedFunction> linked_aten_functions(const std::vector<std::string>& symbols) {
  using Route = LinkedFunction::Route;
  std::vector<LinkedFunction> found;
  for (const std::string& symbol : symbols) {
    const std::string_view qualified = without_parameters(symbol);
    if (qualified.starts_with("at::_ops::")) {
      // at::_ops::<op>::call or ::redispatch (also ::schema, ::name, ...: not calls)
      const std::string_view rest = qualified.substr(std::strlen("at::_ops::"));
      const size_t colons = rest.find("::");
      if (colons == std::string_view::npos) continue;
      const std::string_view member = rest.substr(colons + 2);
      if (member != "call" && member != "redispatch") continue;
      found.push_back({member == "call" ? Route::ops_call : Route::ops_redispatch, std::string(rest.substr(0, colons)),
                       symbol});
      continue;
    }
    for (std::string_view ns : kKernelNamespaces) {
      if (!qualified.starts_with(ns)) continue;
      std::string_view name = qualified.substr(ns.size());
      name = name.substr(0, name.find("::"));  // at::native::structured_add_out::impl -> structured_add_out
      found.push_back({Route::kernel, std::string(name), symbol});
      break;
    }
    for (std::string_view hiding : kHiding) {
      if (qualified == hiding) found.push_back({Route::hides_calls, std::string(hiding), symbol});
    }
    if (atens_internal_kernel(qualified)) found.push_back({Route::hides_calls, std::string(qualified), symbol});
  }
  return found;
}

}  // namespace backendbench::observe
