#include "observe/borrowed_work.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace backendbench::observe {
namespace {

// The ATen operators every candidate may call: they allocate, view, copy,
// fill or describe tensors, and compute nothing of an operator's result.
constexpr std::string_view kAllowedCalls[] = {
    // allocation
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "scalar_tensor",
    "resize_", "resize_as_", "_resize_output_", "arange",
    // fills
    "fill_", "fill", "zero_", "zero",
    // copies
    "copy_", "copy", "clone", "contiguous", "_to_copy", "to", "_copy_from", "_copy_from_and_resize", "lift_fresh",
    "lift_fresh_copy", "lift", "set_", "pin_memory", "_pin_memory", "type_as", "ravel",
    // views
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "as_strided_", "expand", "expand_as",
    "squeeze", "squeeze_", "unsqueeze", "unsqueeze_", "permute", "transpose", "transpose_", "t", "t_", "select",
    "slice", "narrow", "unfold", "view_as", "view_as_real", "view_as_complex", "alias", "detach", "detach_",
    "unbind", "split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "chunk", "unsafe_chunk",
    "tensor_split", "movedim", "moveaxis", "flatten", "unflatten", "diagonal", "real", "imag", "_conj", "conj",
    "resolve_conj", "resolve_neg", "_neg_view", "numpy_T", "mT", "mH", "adjoint", "swapaxes", "swapdims",
    "broadcast_to", "broadcast_tensors", "reshape_as", "atleast_1d", "atleast_2d", "atleast_3d", "hsplit", "vsplit",
    "dsplit", "positive",
    // metadata and scalars
    "size", "stride", "numel", "dim", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
    "storage_offset", "is_contiguous", "is_same_size", "is_nonzero", "item", "_local_scalar_dense", "result_type",
    "can_cast", "promote_types", "_has_compatible_shallow_copy_type", "is_complex", "is_floating_point",
    "is_pinned", "record_stream", "_version", "output_nr", "requires_grad_",
};

// "relu_" -> "relu" (the in-place sibling shares its base); "__and__" stays.
std::string_view base_of(std::string_view name) {
  if (name.ends_with("_") && !name.ends_with("__")) name.remove_suffix(1);
  return name;
}

// "aten::relu_" -> {"aten", "relu"}.
std::pair<std::string, std::string> split_name(const std::string& qualified) {
  const size_t colons = qualified.find("::");
  if (colons == std::string::npos) return {"", std::string(base_of(qualified))};
  return {qualified.substr(0, colons), std::string(base_of(std::string_view(qualified).substr(colons + 2)))};
}

// The operator an at::_ops identifier names: "add_Tensor" -> aten::add.Tensor.
const std::unordered_map<std::string, c10::OperatorName>& ops_identifiers() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string, c10::OperatorName>();
    for (const c10::OperatorName& op : c10::Dispatcher::singleton().getAllOpNames()) {
      if (!op.name.starts_with("aten::")) continue;
      const std::string base = op.name.substr(6);
      m->emplace(op.overload_name.empty() ? base : base + "_" + op.overload_name, op);
    }
    return m;
  }();
  return *map;
}

// Base names of every ATen operator, to tell an ATen kernel function
// (at::native::clamp_min) from a helper (at::native::resize_output).
const std::unordered_set<std::string>& aten_bases() {
  static const auto* set = [] {
    auto* s = new std::unordered_set<std::string>();
    for (const c10::OperatorName& op : c10::Dispatcher::singleton().getAllOpNames()) {
      if (op.name.starts_with("aten::")) s->emplace(base_of(std::string_view(op.name).substr(6)));
    }
    return s;
  }();
  return *set;
}

// An ATen kernel function's operator base: "structured_add_out" -> "add",
// "relu_" -> "relu", "clamp_min_outf" -> "clamp_min".
std::string kernel_base(std::string_view name) {
  if (name.starts_with("structured_")) name.remove_prefix(std::string_view("structured_").size());
  for (std::string_view suffix : {"_symint", "_outf", "_out", "_cpu", "_cuda", "_functional"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  return std::string(base_of(name));
}

bool native_or_triton(backends::KernelLanguage language) {
  using backends::KernelLanguage;
  return language == KernelLanguage::cpp || language == KernelLanguage::cuda || language == KernelLanguage::triton;
}

std::string language_name(backends::KernelLanguage language) { return std::string(backends::to_string(language)); }

}  // namespace

bool is_allowed_call(std::string_view base_name) {
  // The table spells in-place names as written ("resize_"); calls arrive as bases ("resize").
  return std::any_of(std::begin(kAllowedCalls), std::end(kAllowedCalls),
                     [&](std::string_view allowed) { return base_of(allowed) == base_of(base_name); });
}

BorrowedWorkCheck::BorrowedWorkCheck(const c10::OperatorName& replaced, backends::KernelLanguage language)
    : replaced_(replaced), language_(language) {
  std::tie(ns_, base_) = split_name(replaced.name);
}

bool BorrowedWorkCheck::replaces(std::string_view ns, std::string_view base) const {
  return ns == ns_ && base == base_;
}

std::optional<BorrowedWork> BorrowedWorkCheck::check_linked(const std::vector<LinkedFunction>& linked) const {
  using results::ErrorType;
  using Route = LinkedFunction::Route;
  if (language_ == backends::KernelLanguage::aten) return std::nullopt;
  const std::string replaced = display_name(replaced_);
  for (const LinkedFunction& f : linked) {
    if (f.route == Route::hides_calls) {
      return BorrowedWork{ErrorType::reference_fallback,
                          "its shared object links " + f.symbol + ", which reaches ATen past the calls the checks "
                          "see (the observation turned off, an operator looked up and called itself, or ATen's "
                          "kernels below its operators)"};
    }
  }
  std::optional<BorrowedWork> compute;
  for (const LinkedFunction& f : linked) {
    std::string base;
    if (f.route == Route::kernel) {
      base = kernel_base(f.name);
      if (!aten_bases().contains(base)) continue;  // a helper, not an operator's kernel
    } else {
      const auto it = ops_identifiers().find(f.name);
      if (it == ops_identifiers().end()) continue;
      base = split_name(it->second.name).second;
    }
    if (replaces("aten", base)) {
      return BorrowedWork{ErrorType::reference_fallback, "its shared object links " + f.symbol + ": ATen's " +
                                                             replaced + " (or a sibling) does the work it replaces"};
    }
    if (!compute && !is_allowed_call(base) && native_or_triton(language_)) {
      compute = BorrowedWork{ErrorType::aten_compute_call,
                             "its shared object links " + f.symbol + ": a " + language_name(language_) +
                                 " kernel must compute itself; it may call ATen only to allocate, view, copy or fill"};
    }
  }
  return compute;
}

std::optional<BorrowedWork> BorrowedWorkCheck::check_calls(const CallCounts& candidate, const CallCounts& reference) const {
  return check(candidate, reference, "while it ran", !native_or_triton(language_));
}

std::optional<BorrowedWork> BorrowedWorkCheck::check_import_calls(const CallCounts& imported,
                                                                  const CallCounts& reference) const {
  return check(imported, reference, "while its module was imported", true);
}

std::optional<BorrowedWork> BorrowedWorkCheck::check(const CallCounts& calls, const CallCounts& reference,
                                                     std::string_view when, bool computing_calls_allowed) const {
  using results::ErrorType;
  if (language_ == backends::KernelLanguage::aten) return std::nullopt;
  const std::string replaced = display_name(replaced_);
  const std::string during(when);
  std::optional<BorrowedWork> found;
  for (const auto& [op, count] : calls) {
    const auto [ns, base] = split_name(op.name);
    const std::string called = display_name(op);
    if (replaces(ns, base)) {
      return BorrowedWork{ErrorType::reference_fallback,
                          "called " + called + " " + during + ": ATen did the work of " + replaced + ", which it replaces"};
    }
    if (is_allowed_call(base)) continue;
    if (op != replaced_ && reference.contains(op)) {
      found = BorrowedWork{ErrorType::reference_fallback, "called " + called + " " + during + ", which ATen's " +
                                                              replaced + " calls to do its work on this input"};
    } else if (!found && !computing_calls_allowed) {
      found = BorrowedWork{ErrorType::aten_compute_call,
                           "called " + called + " while it ran: a " + language_name(language_) +
                               " kernel must compute itself; it may call ATen only to allocate, view, copy or fill"};
    }
  }
  return found;
}

}  // namespace backendbench::observe
