#include "facto/generator.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string_view>
#include <unordered_map>

#include <ATen/core/jit_type.h>

#include "check/compare.h"
#include "inputs/materialize.h"
#include "runner/prepare.h"
#include "spec/parse.h"
#include "spec/serialize.h"
#include "timing/timer.h"
#include "util/hash.h"
#include "util/text.h"

namespace backendbench::facto {
namespace {

using spec::Dtype;
using spec::TensorSpec;
using spec::Value;
using Shape = std::vector<int64_t>;

// Argument values a table row fixes: "name=v1|v2; other=w" -> {name: [v1, v2], other: [w]}.
std::unordered_map<std::string, std::vector<Value>> parse_choices(std::string_view text, std::string_view op) {
  std::unordered_map<std::string, std::vector<Value>> out;
  while (!text.empty()) {
    const size_t end = std::min(text.find(';'), text.size());
    std::string_view item = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw std::logic_error("facto table, " + std::string(op) + ": no '=' in " + std::string(item));
    const std::string name(util::trim(item.substr(0, eq)));
    std::string_view values = item.substr(eq + 1);
    while (!values.empty()) {
      // '|' never occurs inside these literals.
      const size_t bar = std::min(values.find('|'), values.size());
      const std::string_view literal = util::trim(values.substr(0, bar));
      values.remove_prefix(std::min(bar + 1, values.size()));
      auto parsed = spec::parse_value(literal);
      if (auto* e = std::get_if<spec::ParseError>(&parsed)) {
        throw std::logic_error("facto table, " + std::string(op) + ": " + e->describe(literal));
      }
      out[name].push_back(std::get<Value>(parsed));
    }
  }
  return out;
}

c10::TypePtr unwrap_optional(const c10::TypePtr& type) {
  if (auto optional = type->cast<c10::OptionalType>()) return optional->getElementType();
  return type;
}

bool is_kind(const c10::TypePtr& type, c10::TypeKind kind) { return unwrap_optional(type)->kind() == kind; }

bool is_list_of(const c10::TypePtr& type, c10::TypeKind element) {
  const auto list = unwrap_optional(type)->cast<c10::ListType>();
  return list && unwrap_optional(list->getElementType())->kind() == element;
}

bool is_int(const c10::TypePtr& type) {
  return is_kind(type, c10::TypeKind::IntType) || is_kind(type, c10::TypeKind::SymIntType);
}

bool is_int_list(const c10::TypePtr& type) {
  return is_list_of(type, c10::TypeKind::IntType) || is_list_of(type, c10::TypeKind::SymIntType);
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

// Draws one tuple of arguments for an operator under its table row.
class Drawer {
 public:
  Drawer(const c10::FunctionSchema& schema, const OpRule& rule, const GeneratorOptions& options, uint64_t seed)
      : schema_(schema), rule_(rule), options_(options), rng_(seed), choices_(parse_choices(rule.choices, rule.op)) {}

  spec::Arguments draw() {
    pick_dtype_class();
    pick_base_shape();
    spec::Arguments a;
    bool by_keyword = false;  // once an argument is left out or named, the rest are named too
    for (const c10::Argument& arg : schema_.arguments()) {
      const bool has_default = arg.default_value().has_value();
      if (has_default && !choices_.contains(arg.name()) && !wanted(arg) && chance(0.35)) {
        by_keyword = true;
        continue;
      }
      std::optional<Value> v = value_for(arg);
      if (!v) {  // nothing to draw but the default
        by_keyword = true;
        continue;
      }
      if (arg.kwarg_only() || (has_default && (by_keyword || chance(0.2)))) {
        a.kwargs.emplace_back(arg.name(), std::move(*v));
        by_keyword = true;
      } else {
        a.args.push_back(std::move(*v));
      }
    }
    return a;
  }

  bool has_floating() const { return floating_tensors_ > 0; }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t uniform(int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng_); }
  template <typename T>
  T pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

  // Arguments the family needs drawn (not left to their default).
  bool wanted(const c10::Argument& arg) const {
    const std::string& n = arg.name();
    if (rule_.family == Family::layer_norm) return n == "weight" || n == "bias";
    if (rule_.family == Family::pool2d) return n == "stride" || n == "padding";
    if (rule_.family == Family::reduction) return n == "dim";
    return false;
  }

  void pick_dtype_class() {
    using Weighted = std::pair<unsigned, double>;
    std::vector<Weighted> classes;
    for (const Weighted& c : {Weighted{floating, 0.6}, Weighted{integral, 0.25}, Weighted{boolean, 0.15}}) {
      if (rule_.dtypes & c.first) classes.push_back(c);
    }
    double total = 0;
    for (const auto& c : classes) total += c.second;
    double x = std::uniform_real_distribution<double>(0, total)(rng_);
    unsigned chosen = classes.front().first;
    for (const auto& [cls, weight] : classes) {
      if (x < weight) {
        chosen = cls;
        break;
      }
      x -= weight;
    }
    base_dtype_ = dtype_of(chosen);
  }

  Dtype dtype_of(unsigned cls) {
    if (cls == floating) return options_.floating;
    if (cls == boolean) return Dtype::b8;
    return chance(0.7) ? Dtype::i64 : Dtype::i32;
  }

  int64_t size() { return chance(0.04) ? 0 : pick(std::vector<int64_t>{1, 2, 3, 4, 5, 7, 8}); }

  Shape shape_of_rank(int64_t rank) {
    Shape s;
    for (int64_t i = 0; i < rank; ++i) s.push_back(size());
    return s;
  }

  void pick_base_shape() {
    const Family f = rule_.family;
    int64_t rank = pick(std::vector<int64_t>{0, 1, 1, 2, 2, 2, 3, 3, 4});
    if (f == Family::layer_norm || f == Family::list) rank = std::max<int64_t>(rank, 1);
    if (f == Family::pool2d || f == Family::upsample2d) rank = uniform(3, 4);
    base_shape_ = shape_of_rank(rank);
    if (f == Family::pool2d || f == Family::upsample2d) {
      for (size_t i = base_shape_.size() - 2; i < base_shape_.size(); ++i) base_shape_[i] = uniform(2, 8);
    }
    // Matrix products: n x k times k x m, b batches.
    n_ = size(), k_ = size(), m_ = size(), b_ = uniform(1, 4);
    normalized_dims_ = base_shape_.empty() ? 0 : static_cast<size_t>(uniform(1, static_cast<int64_t>(base_shape_.size())));
  }

  // A layout for `shape`: contiguous, transposed, every other element, expanded or channels-last.
  std::optional<std::vector<int64_t>> layout(const Shape& shape) {
    const size_t r = shape.size();
    const int64_t numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    if (numel == 0 || r == 0 || chance(0.55)) return std::nullopt;
    const int choice = static_cast<int>(uniform(0, 3));
    if (choice == 0 && r >= 2) {  // the last two dims transposed
      Shape swapped = shape;
      std::swap(swapped[r - 1], swapped[r - 2]);
      auto strides = contiguous_strides(swapped);
      std::swap(strides[r - 1], strides[r - 2]);
      return strides;
    }
    if (choice == 1) {  // every other element of the last dim
      Shape wider = shape;
      wider[r - 1] *= 2;
      auto strides = contiguous_strides(wider);
      strides[r - 1] = 2;
      return strides;
    }
    if (choice == 2 && r == 4) {  // channels-last (NHWC in memory)
      const Shape nhwc{shape[0], shape[2], shape[3], shape[1]};
      const auto s = contiguous_strides(nhwc);
      return std::vector<int64_t>{s[0], s[3], s[1], s[2]};
    }
    // Expanded: a dim of size > 1 with stride 0 (its elements share memory).
    std::vector<size_t> candidates;
    for (size_t i = 0; i < r; ++i) {
      if (shape[i] > 1) candidates.push_back(i);
    }
    if (candidates.empty()) return std::nullopt;
    auto strides = contiguous_strides(shape);
    strides[pick(candidates)] = 0;
    return strides;
  }

  Value tensor(Shape shape, Dtype dtype) {
    if (dtype == options_.floating) ++floating_tensors_;
    auto strides = layout(shape);
    return TensorSpec{std::move(shape), dtype, std::move(strides)};
  }

  // Another tensor's dtype: the base's mostly, sometimes another the row allows (type promotion).
  Dtype other_dtype() {
    if (chance(0.85)) return base_dtype_;
    std::vector<unsigned> classes;
    for (unsigned cls : {unsigned{floating}, unsigned{integral}, unsigned{boolean}}) {
      if (rule_.dtypes & cls) classes.push_back(cls);
    }
    return dtype_of(pick(classes));
  }

  // A shape that broadcasts with the base: a suffix of it with some dims 1,
  // the base itself, or one the base broadcasts to.
  Shape broadcast_shape() {
    const double x = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (x < 0.3) return base_shape_;
    if (x < 0.85) {
      const size_t keep = static_cast<size_t>(uniform(0, static_cast<int64_t>(base_shape_.size())));
      Shape s(base_shape_.end() - static_cast<std::ptrdiff_t>(keep), base_shape_.end());
      for (auto& d : s) {
        if (chance(0.3)) d = 1;
      }
      return s;
    }
    Shape s = base_shape_;
    for (auto& d : s) {
      if (d == 1) d = uniform(2, 4);
    }
    s.insert(s.begin(), uniform(1, 3));
    return s;
  }

  Shape matmul_shape(const std::string& name) {
    using F = Family;
    switch (rule_.family) {
      case F::mm: return name == "self" ? Shape{n_, k_} : Shape{k_, m_};
      case F::bmm: return name == "self" ? Shape{b_, n_, k_} : Shape{b_, k_, m_};
      case F::mv: return name == "self" ? Shape{n_, k_} : Shape{k_};
      case F::dot: return Shape{k_};
      case F::addmm:
        if (name == "self") return pick(std::vector<Shape>{{n_, m_}, {m_}, {1, m_}, {}});
        return name == "mat1" ? Shape{n_, k_} : Shape{k_, m_};
      case F::addmv:
        if (name == "self") return pick(std::vector<Shape>{{n_}, {1}, {}});
        return name == "mat" ? Shape{n_, k_} : Shape{k_};
      case F::baddbmm:
        if (name == "self") return pick(std::vector<Shape>{{b_, n_, m_}, {n_, m_}, {1, 1, m_}});
        return name == "batch1" ? Shape{b_, n_, k_} : Shape{b_, k_, m_};
      default: return base_shape_;
    }
  }

  bool is_matmul() const {
    using F = Family;
    const F f = rule_.family;
    return f == F::mm || f == F::bmm || f == F::addmm || f == F::mv || f == F::dot || f == F::addmv || f == F::baddbmm;
  }

  Shape normalized_shape() const {
    return Shape(base_shape_.end() - static_cast<std::ptrdiff_t>(normalized_dims_), base_shape_.end());
  }

  Value tensor_arg(const c10::Argument& arg) {
    const std::string& n = arg.name();
    if (n == "condition" || n == "mask") return tensor(broadcast_shape(), Dtype::b8);
    if (is_matmul()) return tensor(matmul_shape(n), base_dtype_);
    if (!base_taken_) {
      base_taken_ = true;
      return tensor(base_shape_, base_dtype_);
    }
    switch (rule_.family) {
      case Family::broadcast: return tensor(broadcast_shape(), other_dtype());
      case Family::layer_norm: return tensor(normalized_shape(), base_dtype_);
      default: return tensor(base_shape_, base_dtype_);
    }
  }

  int64_t rank() const { return static_cast<int64_t>(base_shape_.size()); }

  // A dim of the base, negative half the time: in [-rank, rank) (a 0-d base has dims -1 and 0).
  int64_t dim() {
    const int64_t r = std::max<int64_t>(rank(), 1);
    return uniform(-r, r - 1);
  }

  std::vector<int64_t> dims() {
    std::vector<int64_t> all(static_cast<size_t>(std::max<int64_t>(rank(), 1)));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng_);
    const size_t count = static_cast<size_t>(uniform(1, static_cast<int64_t>(all.size())));
    all.resize(count);
    for (auto& d : all) {
      if (chance(0.4)) d -= std::max<int64_t>(rank(), 1);
    }
    return all;
  }

  Value int_list(const std::vector<int64_t>& xs) {
    spec::List l;
    for (int64_t x : xs) l.items.emplace_back(x);
    return l;
  }

  std::optional<Value> int_list_arg(const std::string& n) {
    const Family f = rule_.family;
    if (f == Family::permute && n == "dims") {
      std::vector<int64_t> perm(base_shape_.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
      for (auto& d : perm) {
        if (chance(0.3)) d -= rank();
      }
      return int_list(perm);
    }
    if (f == Family::reshape && (n == "size" || n == "shape")) {
      const int64_t numel = std::accumulate(base_shape_.begin(), base_shape_.end(), int64_t{1}, std::multiplies<>());
      std::vector<std::vector<int64_t>> options{{numel}, {-1}, {1, numel}, {numel, 1}};
      if (numel > 0 && numel % 2 == 0) options.push_back({2, -1});
      return int_list(pick(options));
    }
    if (f == Family::expand && n == "size") {
      Shape s = base_shape_;
      for (auto& d : s) d = d == 1 ? uniform(1, 4) : (chance(0.3) ? -1 : d);
      if (chance(0.4)) s.insert(s.begin(), uniform(1, 3));
      return int_list(s);
    }
    if (f == Family::repeat && n == "repeats") {
      std::vector<int64_t> r(base_shape_.size() + static_cast<size_t>(uniform(0, 1)));
      for (auto& x : r) x = uniform(1, 3);
      return int_list(r);
    }
    if (f == Family::layer_norm && n == "normalized_shape") return int_list(normalized_shape());
    if (f == Family::pool2d) {
      const int64_t smallest = std::min(base_shape_[base_shape_.size() - 1], base_shape_[base_shape_.size() - 2]);
      if (n == "kernel_size") {
        kernel_ = uniform(1, std::min<int64_t>(3, smallest));
        return int_list({kernel_, kernel_});
      }
      if (n == "stride") return chance(0.3) ? int_list({}) : int_list({uniform(1, 2), uniform(1, 2)});
      if (n == "padding") return int_list({uniform(0, kernel_ / 2), uniform(0, kernel_ / 2)});
    }
    if (f == Family::upsample2d && n == "output_size") return int_list({uniform(1, 8), uniform(1, 8)});
    if (n == "dim" || n == "dims") return int_list(dims());
    if (n == "shifts") return int_list({uniform(-3, 3)});
    return std::nullopt;
  }

  Value scalar() {
    if (base_dtype_ == Dtype::b8) return chance(0.5) ? Value(true) : Value(int64_t{1});
    if (base_dtype_ != options_.floating) return pick(std::vector<int64_t>{1, -2, 3, 0});
    return pick(std::vector<double>{1.0, -2.0, 0.5, 3.25, 0.0});
  }

  std::optional<Value> value_for(const c10::Argument& arg) {
    const std::string& n = arg.name();
    if (auto it = choices_.find(n); it != choices_.end()) return pick(it->second);
    const c10::TypePtr& type = arg.real_type();
    const bool optional = type->kind() == c10::TypeKind::OptionalType;
    using K = c10::TypeKind;
    if (is_kind(type, K::TensorType)) {
      if (optional && rule_.family != Family::layer_norm && chance(0.25)) return Value(spec::None{});
      if (optional && rule_.family == Family::layer_norm && chance(0.2)) return Value(spec::None{});
      return tensor_arg(arg);
    }
    if (is_list_of(type, K::TensorType)) {
      spec::List l;
      const int64_t count = uniform(1, 3);
      for (int64_t i = 0; i < count; ++i) l.items.push_back(tensor(base_shape_, base_dtype_));
      base_taken_ = true;
      return Value(std::move(l));
    }
    if (is_int_list(type)) {
      if (auto v = int_list_arg(n)) return v;
      if (optional) return Value(spec::None{});
      return arg.default_value() ? std::nullopt : std::optional<Value>(int_list({1, 2}));
    }
    if (is_int(type)) {
      static const std::set<std::string> kDims{"dim", "dim0", "dim1", "dim2", "dimension", "source", "destination",
                                               "start_dim", "end_dim"};
      if (kDims.contains(n)) return Value(dim());
      if (optional && chance(0.3)) return Value(spec::None{});
      return Value(pick(std::vector<int64_t>{0, 1, 2, -1, 3}));
    }
    if (is_kind(type, K::FloatType)) {
      if (optional && chance(0.3)) return Value(spec::None{});
      if (n == "eps") return Value(1e-5);
      return Value(pick(std::vector<double>{0.5, 1.0, -1.5, 2.0}));
    }
    if (is_kind(type, K::NumberType)) {
      if (optional && chance(0.3)) return Value(spec::None{});
      return scalar();
    }
    if (is_kind(type, K::BoolType)) return Value(chance(0.5));
    if (optional) return Value(spec::None{});  // dtypes, layouts, devices, memory formats, generators
    return std::nullopt;                      // strings and the like: only their default
  }

  const c10::FunctionSchema& schema_;
  const OpRule& rule_;
  const GeneratorOptions& options_;
  std::mt19937_64 rng_;
  std::unordered_map<std::string, std::vector<Value>> choices_;
  Dtype base_dtype_ = Dtype::f32;
  Shape base_shape_;
  bool base_taken_ = false;
  int64_t n_ = 1, k_ = 1, m_ = 1, b_ = 1, kernel_ = 1;
  size_t normalized_dims_ = 0;
  size_t floating_tensors_ = 0;
};

std::string edge_label(unsigned edges) {
  std::string names;
  using Named = std::pair<unsigned, const char*>;
  for (const auto& [bit, name] : {Named{Edge::nan, "nan"}, Named{Edge::inf, "inf"}, Named{Edge::negative_zero, "-0.0"},
                                  Named{Edge::denormal, "denormal"}, Named{Edge::large, "large"}}) {
    if (edges & bit) names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return "facto edge values: " + names;
}

// Why ATen does not accept the tuple, or "" when it runs and agrees with itself.
std::string rejection(const c10::OperatorHandle& op, const data::InputRecord& record, c10::Device device, uint64_t seed) {
  std::vector<torch::jit::Stack> outputs;
  for (int call = 0; call < 2; ++call) {
    auto prepared = runner::prepare_inputs(op, record, device, seed);
    if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) return f->failure.type_name();
    torch::jit::Stack stack = std::move(std::get<torch::jit::Stack>(prepared));
    try {
      op.callBoxed(stack);
      timing::synchronize(device);
    } catch (const std::exception&) {
      return "ATen raised";
    }
    outputs.push_back(std::move(stack));
  }
  try {
    // Disagreeing beyond BackendBench's atol/rtol (a difference within it is PrecisionLoss).
    const check::Comparison c = check::compare_outputs(check::Expected{.outputs = outputs[0]}, outputs[1]);
    if (!c.matches && c.type != results::ErrorType::precision_loss) return "ATen disagreed with itself";
  } catch (const std::exception&) {
    return "ATen's outputs could not be compared";
  }
  return "";
}

}  // namespace

Generated generate(const c10::OperatorHandle& op, const OpRule& rule, const GeneratorOptions& options) {
  Generated out;
  std::set<std::string> seen;
  const uint64_t op_seed = util::fnv1a(rule.op, util::kFnvOffsetBasis ^ options.seed);
  const size_t budget = options.tuples * options.max_draws_per_tuple;
  while (out.tuples.size() < options.tuples && out.drawn < budget) {
    Drawer drawer(op.schema(), rule, options, op_seed + 0x9E3779B97F4A7C15ULL * ++out.drawn);
    data::InputRecord record;
    record.op_name = "aten." + std::string(rule.op);
    record.args = drawer.draw();
    record.args_text = spec::serialize(*record.args);
    // Every other tuple with edge values, when it has floating-point tensors to hold them.
    if (rule.edges != 0 && drawer.has_floating() && out.tuples.size() % 2 == 0) {
      record.values = {.kind = data::TensorValues::Kind::edge, .edges = rule.edges, .label = edge_label(rule.edges)};
      record.args_text += "  # " + record.values.label;
    }
    record.count = 1;
    record.where.file = "<facto>";
    if (seen.contains(record.args_text)) {
      ++out.rejections["a tuple drawn before"];
      continue;
    }
    const uint64_t seed = inputs::test_seed(rule.op, record.args_text, options.seed);
    if (std::string why = rejection(op, record, options.device, seed); !why.empty()) {
      ++out.rejections[why];
      continue;
    }
    seen.insert(record.args_text);
    out.tuples.push_back(std::move(record));
  }
  return out;
}

}  // namespace backendbench::facto
