#include "ops/legacy.h"

#include <algorithm>

#include "ops/resolve.h"
#include "spec/serialize.h"

namespace backendbench::ops {
namespace {

using Map = ArgumentMap;

// Parameters as torch 1.13's native_functions.yaml declared them; today's
// operators take the same values (the ones after `*` by the same keyword).
constexpr LegacyRewrite kRewrites[] = {
    // The .vec backward overloads (torch 2.0 kept only the forward .vec ones).
    {"aten.upsample_nearest1d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten.upsample_nearest1d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_nearest2d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten.upsample_nearest2d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_nearest3d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten.upsample_nearest3d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten._upsample_nearest_exact1d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten._upsample_nearest_exact1d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten._upsample_nearest_exact2d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten._upsample_nearest_exact2d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten._upsample_nearest_exact3d_backward.vec", "grad_output, output_size, input_size, scale_factors",
     "aten._upsample_nearest_exact3d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_linear1d_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten.upsample_linear1d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_bilinear2d_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten.upsample_bilinear2d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten._upsample_bilinear2d_aa_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten._upsample_bilinear2d_aa_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_bicubic2d_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten.upsample_bicubic2d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten._upsample_bicubic2d_aa_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten._upsample_bicubic2d_aa_backward.default", Map::output_size_from_scale_factors, "2.0"},
    {"aten.upsample_trilinear3d_backward.vec", "grad_output, output_size, input_size, align_corners, scale_factors",
     "aten.upsample_trilinear3d_backward.default", Map::output_size_from_scale_factors, "2.0"},
    // im2col's gradient is col2im and col2im's is im2col, with the same parameters.
    {"aten.im2col_backward.default", "grad_output, input_size, kernel_size, dilation, padding, stride",
     "aten.col2im.default", Map::same, "2.0"},
    {"aten.col2im_backward.default", "grad_output, kernel_size, dilation, padding, stride", "aten.im2col.default",
     Map::same, "2.0"},
    // where.self broadcasts its inputs, then did what _s_where did on inputs of one shape.
    {"aten._s_where.default", "condition, self, other", "aten.where.self", Map::same, "1.13"},
    // The SymInt overloads of torch 1.13 nightlies: the same operators, sizes typed SymInt[].
    {"aten.sum.SymInt", "self, dim, keepdim, *, dtype", "aten.sum.dim_IntList", Map::same, "2.0"},
    {"aten.view.SymInt", "self, size", "aten.view.default", Map::same, "2.0"},
    {"aten.view_copy.SymInt", "self, size", "aten.view_copy.default", Map::same, "2.0"},
    {"aten.expand.SymInt", "self, size, *, implicit", "aten.expand.default", Map::same, "2.0"},
    {"aten.expand_copy.SymInt", "self, size, *, implicit", "aten.expand_copy.default", Map::same, "2.0"},
    {"aten.narrow_copy.SymInt", "self, dim, start, length", "aten.narrow_copy.default", Map::same, "2.0"},
    {"aten.new_empty.SymInt", "self, size, *, dtype, layout, device, pin_memory", "aten.new_empty.default",
     Map::same, "2.0"},
    {"aten.zeros.SymInt", "size, *, dtype, layout, device, pin_memory", "aten.zeros.default", Map::same, "2.0"},
    {"aten.empty.SymInt", "size, *, dtype, layout, device, pin_memory, memory_format", "aten.empty.memory_format",
     Map::same, "2.0"},
};

struct Parameters {
  std::vector<std::string> positional;
  std::vector<std::string> keyword_only;
};

Parameters parameters_of(std::string_view list) {
  Parameters out;
  bool keyword_only = false;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (item.starts_with(' ')) item.remove_prefix(1);
    if (item == "*") {
      keyword_only = true;
    } else {
      (keyword_only ? out.keyword_only : out.positional).emplace_back(item);
    }
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return out;
}

// Why a legacy call's arguments do not fit its parameters.
struct Unfit {
  std::string message;
};

// A legacy call's positional values by parameter, keywords placed at their
// parameter's position; keyword-only arguments kept apart. Throws Unfit.
struct Bound {
  std::vector<std::string> names;  // positional parameters that have a value, in order
  std::vector<spec::Value> values;
  std::vector<std::pair<std::string, spec::Value>> keyword_only;

  const spec::Value& at(std::string_view name) const {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw Unfit{"missing argument '" + std::string(name) + "'"};
    return values[static_cast<size_t>(it - names.begin())];
  }
};

Bound bind_legacy(const Parameters& params, const spec::Arguments& args) {
  if (args.args.size() > params.positional.size()) {
    throw Unfit{"takes " + std::to_string(params.positional.size()) + " positional argument(s) but " +
        std::to_string(args.args.size()) + " were given"};
  }
  std::vector<const spec::Value*> given(params.positional.size(), nullptr);
  for (size_t i = 0; i < args.args.size(); ++i) given[i] = &args.args[i];
  Bound out;
  for (const auto& [name, value] : args.kwargs) {
    const auto it = std::find(params.positional.begin(), params.positional.end(), name);
    if (it != params.positional.end()) {
      const size_t i = static_cast<size_t>(it - params.positional.begin());
      if (given[i]) throw Unfit{"argument '" + name + "' given twice"};
      given[i] = &value;
    } else if (std::find(params.keyword_only.begin(), params.keyword_only.end(), name) != params.keyword_only.end()) {
      out.keyword_only.emplace_back(name, value);
    } else {
      throw Unfit{"unexpected keyword argument '" + name + "'"};
    }
  }
  // Omitted trailing parameters take today's defaults; a gap cannot be passed by position.
  size_t count = 0;
  while (count < given.size() && given[count]) ++count;
  for (size_t i = count; i < given.size(); ++i) {
    if (given[i]) {
      throw Unfit{"argument '" + params.positional[i] + "' is given but '" + params.positional[count] + "' before it is not"};
    }
  }
  for (size_t i = 0; i < count; ++i) {
    out.names.push_back(params.positional[i]);
    out.values.push_back(*given[i]);
  }
  return out;
}

// The items of a list (or tuple) argument, each checked by `take`; Unfit naming `what` otherwise.
template <typename T, typename Take>
std::vector<T> list_of(const spec::Value& v, std::string_view name, std::string_view what, Take take) {
  const auto* list = v.get_if<spec::List>();
  const auto* tuple = v.get_if<spec::Tuple>();
  const std::vector<spec::Value>* items = list ? &list->items : tuple ? &tuple->items : nullptr;
  const Unfit unfit{"'" + std::string(name) + "' must be " + std::string(what)};
  if (!items) throw unfit;
  std::vector<T> out;
  for (const auto& item : *items) {
    const std::optional<T> value = take(item);
    if (!value) throw unfit;
    out.push_back(*value);
  }
  return out;
}

std::vector<int64_t> int_list(const spec::Value& v, std::string_view name) {
  return list_of<int64_t>(v, name, "a list of integers", [](const spec::Value& item) -> std::optional<int64_t> {
    if (const auto* i = item.get_if<int64_t>()) return *i;
    return std::nullopt;
  });
}

std::vector<double> number_list(const spec::Value& v, std::string_view name) {
  return list_of<double>(v, name, "a list of numbers or None", [](const spec::Value& item) -> std::optional<double> {
    if (const auto* i = item.get_if<int64_t>()) return static_cast<double>(*i);
    if (const auto* d = item.get_if<double>()) return *d;
    return std::nullopt;
  });
}

spec::List int_values(const std::vector<int64_t>& values) {
  spec::List out;
  for (int64_t v : values) out.items.emplace_back(v);
  return out;
}

// torch 1.13's upsample compute_output_size: the output size given, or each
// spatial input size times its scale factor, truncated.
std::vector<int64_t> output_size(const Bound& call, size_t spatial) {
  const spec::Value& given = call.at("output_size");
  const spec::Value& scales = call.at("scale_factors");
  const std::vector<int64_t> input_size = int_list(call.at("input_size"), "input_size");
  if (!given.is<spec::None>()) {
    if (!scales.is<spec::None>()) throw Unfit{"give exactly one of 'output_size' and 'scale_factors'"};
    std::vector<int64_t> out = int_list(given, "output_size");
    if (out.size() != spatial) {
      throw Unfit{"'output_size' has " + std::to_string(out.size()) + " sizes; the input has " +
                  std::to_string(spatial) + " spatial dimensions"};
    }
    return out;
  }
  if (scales.is<spec::None>()) throw Unfit{"give exactly one of 'output_size' and 'scale_factors'"};
  const std::vector<double> factors = number_list(scales, "scale_factors");
  if (factors.size() != spatial) {
    throw Unfit{"'scale_factors' has " + std::to_string(factors.size()) + " factors; the input has " +
                std::to_string(spatial) + " spatial dimensions"};
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < spatial; ++i) {
    const double size = static_cast<double>(input_size[i + 2]) * factors[i];
    // 2^63 is the first double beyond int64.
    if (!(size >= 0 && size < 9223372036854775808.0)) throw Unfit{"'scale_factors' give an impossible output size"};
    out.push_back(static_cast<int64_t>(size));
  }
  return out;
}

spec::Arguments map_arguments(const LegacyRewrite& rewrite, const spec::Arguments& args) {
  const Bound call = bind_legacy(parameters_of(rewrite.parameters), args);
  spec::Arguments out;
  out.kwargs = call.keyword_only;
  if (rewrite.map == Map::same) {
    out.args = call.values;
    return out;
  }
  // output_size_from_scale_factors
  const std::vector<int64_t> input_size = int_list(call.at("input_size"), "input_size");
  if (input_size.size() < 3) throw Unfit{"'input_size' must have a batch, a channel and spatial sizes"};
  const size_t spatial = input_size.size() - 2;
  for (const auto& name : parameters_of(rewrite.parameters).positional) {
    if (name == "output_size") {
      out.args.emplace_back(int_values(output_size(call, spatial)));
    } else if (name == "scale_factors") {
      const spec::Value& scales = call.at(name);
      const std::vector<double> factors = scales.is<spec::None>() ? std::vector<double>() : number_list(scales, name);
      for (size_t i = 0; i < spatial; ++i) {
        out.args.emplace_back(factors.empty() ? spec::Value(spec::None{}) : spec::Value(factors[i]));
      }
    } else {
      out.args.push_back(call.at(name));
    }
  }
  return out;
}

const LegacyRewrite* find_rewrite(std::string_view op_name) {
  const std::string dotted = results::parse_operator_name(op_name).dotted();
  for (const auto& r : kRewrites) {
    if (r.legacy == dotted) return &r;
  }
  return nullptr;
}

}  // namespace

std::span<const LegacyRewrite> legacy_rewrites() { return kRewrites; }

std::optional<std::variant<ModernCall, std::string>> rewrite_legacy_call(std::string_view op_name,
                                                                        const spec::Arguments& args) {
  const LegacyRewrite* rewrite = find_rewrite(op_name);
  if (!rewrite) return std::nullopt;
  try {
    return ModernCall{std::string(rewrite->today), map_arguments(*rewrite, args)};
  } catch (const Unfit& e) {
    return e.message;
  }
}

size_t rewrite_legacy_records(std::vector<data::InputRecord>& records) {
  size_t rewritten = 0;
  for (auto& rec : records) {
    const LegacyRewrite* rewrite = find_rewrite(rec.op_name);
    if (!rewrite) continue;
    ++rewritten;
    rec.legacy_op_name = rec.op_name;
    rec.op_name = std::string(rewrite->today);
    if (!rec.args) continue;  // did not parse: stays a malformed input, now of today's operator
    const auto call = rewrite_legacy_call(rec.legacy_op_name, *rec.args);
    if (const auto* why = std::get_if<std::string>(&*call)) {
      rec.args.reset();
      rec.error = rec.where.describe() + ": " + rec.legacy_op_name + " (removed in torch " +
                  std::string(rewrite->removed_in) + ") cannot be rewritten onto " + rec.op_name + ": " + *why;
      continue;
    }
    rec.args = std::get<ModernCall>(*call).args;
    rec.args_text = spec::serialize(*rec.args);
  }
  if (rewritten > 0) records = data::merge_duplicates(std::move(records));
  return rewritten;
}

}  // namespace backendbench::ops
