// Properties over random input: parse(serialize(x)) == x for random values,
// and the parser survives random mutations of valid lines and random bytes.
#include <array>
#include <bit>
#include <limits>
#include <random>
#include <set>

#include "spec/serialize.h"
#include "spec/spec_test_util.h"

namespace backendbench::spec {
namespace {

class ValueGenerator {
 public:
  explicit ValueGenerator(uint64_t seed) : rng_(seed) {}

  Value value(int depth) {
    // Lists and tuples only above the depth limit, so that trees stay small.
    const int kinds = depth >= 4 ? 10 : 12;
    switch (pick(kinds)) {
      case 0: return None{};
      case 1: return pick(2) == 1;
      case 2: return integer();
      case 3: return real();
      case 4: return text();
      case 5: return tensor();
      case 6: return static_cast<Dtype>(pick(13));
      case 7: return device();
      case 8: return Layout{std::string(kLayouts[pick(kLayouts.size())])};
      case 9: return MemoryFormat{std::string(kMemoryFormats[pick(kMemoryFormats.size())])};
      case 10: return List{items(depth)};
      default: return Tuple{items(depth)};
    }
  }

  Arguments arguments() {
    Arguments a;
    a.args = items(0);
    std::set<std::string> keys;
    for (size_t i = 0, n = pick(5); i < n; ++i) {
      std::string key = text();
      if (keys.insert(key).second) a.kwargs.emplace_back(std::move(key), value(1));
    }
    return a;
  }

 private:
  static constexpr std::array<std::string_view, 4> kLayouts = {"strided", "sparse_coo", "sparse_csr", "_mkldnn"};
  static constexpr std::array<std::string_view, 4> kMemoryFormats = {
      "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"};

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::vector<Value> items(int depth) {
    std::vector<Value> out;
    for (size_t i = 0, n = pick(5); i < n; ++i) out.push_back(value(depth + 1));
    return out;
  }

  int64_t integer() {
    switch (pick(4)) {
      case 0: return std::numeric_limits<int64_t>::min() + static_cast<int64_t>(pick(3));
      case 1: return std::numeric_limits<int64_t>::max() - static_cast<int64_t>(pick(3));
      case 2: return static_cast<int64_t>(rng_());
      default: return static_cast<int64_t>(pick(2001)) - 1000;
    }
  }

  double real() {
    constexpr double kSpecial[] = {
        0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
        -std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
        std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), 1e-05, 1e16, 0.0001, 1e15,
    };
    switch (pick(4)) {
      case 0: return kSpecial[pick(std::size(kSpecial))];
      case 1: return std::bit_cast<double>(rng_());  // any bit pattern: subnormals, NaN payloads, huge
      case 2: return std::bit_cast<double>(rng_() & 0x800FFFFFFFFFFFFFull);  // subnormals and zeros
      default: return static_cast<double>(integer() % 100000) / 1000.0;
    }
  }

  std::string text() {
    constexpr std::string_view kPool = "abc'\"\\ \n\t\r\x01\x7f:{}()[],T";
    std::string s;
    for (size_t i = 0, n = pick(10); i < n; ++i) {
      switch (pick(4)) {
        case 0: s += static_cast<char>(pick(256)); break;  // any byte, NUL and invalid UTF-8 included
        default: s += kPool[pick(kPool.size())]; break;
      }
    }
    return s;
  }

  TensorSpec tensor() {
    TensorSpec t;
    t.dtype = static_cast<Dtype>(pick(13));
    const size_t rank = pick(5);
    const bool strided = pick(2) == 1;
    // A huge size only where the tensor's bytes still fit in int64 (the parser refuses the rest).
    for (size_t i = 0; i < rank; ++i) t.shape.push_back(size(rank == 1 && !strided));
    if (strided) {
      t.stride.emplace();
      for (size_t i = 0; i < rank; ++i) t.stride->push_back(size(false));
    }
    return t;
  }

  int64_t size(bool huge_allowed) {
    return huge_allowed && pick(8) == 0 ? int64_t{1} << 58 : static_cast<int64_t>(pick(5000));
  }

  Device device() {
    constexpr std::string_view kTypes[] = {"cuda", "cpu", "meta", "mps", "xpu", "privateuseone"};
    Device d{std::string(kTypes[pick(std::size(kTypes))]), std::nullopt};
    if (pick(2) == 1) d.index = pick(3) == 0 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(pick(8));
    return d;
  }

  std::mt19937_64 rng_;
};

TEST(RoundTrip, RandomArgumentsAndValues) {
  ValueGenerator gen(20240601);
  for (int i = 0; i < 10000; ++i) {
    const Arguments a = gen.arguments();
    const std::string text = serialize(a);
    const Arguments back = testing::args_of(text);
    ASSERT_EQ(back, a) << text;
    ASSERT_EQ(serialize(back), text);  // the canonical form is a fixed point
  }
  for (int i = 0; i < 10000; ++i) {
    const Value v = gen.value(0);
    const std::string text = serialize(v);
    const Value back = testing::value_of(text);
    ASSERT_EQ(back, v) << text;
  }
}

// Random edits of valid lines: the parser must answer every one, with an
// in-range column on error, and anything it accepts must round-trip.
class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(std::string s) {
    for (size_t edits = 1 + pick(3); edits > 0; --edits) {
      const size_t at = pick(s.size() + 1);
      switch (pick(6)) {
        case 0:
          if (at < s.size()) s[at] = static_cast<char>(pick(256));
          break;
        case 1: s.insert(at, 1, static_cast<char>(pick(256))); break;
        case 2: s.insert(at, std::string(kTokens[pick(std::size(kTokens))])); break;
        case 3: s.erase(at, pick(8)); break;
        case 4: s.resize(at); break;
        default: s.insert(at, 1 + pick(300), "([{"[pick(3)]); break;
      }
    }
    return s;
  }

  std::string random_bytes() {
    std::string s(pick(65), '\0');
    for (char& c : s) c = static_cast<char>(pick(256));
    return s;
  }

 private:
  static constexpr std::string_view kTokens[] = {
      "(", ")", "[", "]", "{", "}", ",", "'", "\"", "\\", ":", "=", "-", ".", "e", "T(", "torch.", "th.",
      "inf", "nan", "None", "True", "f16", "stride=", "device(", "float(", "1e400", "99999999999999999999",
      "\\x", "\\U", " ", "\n",
  };

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::mt19937_64 rng_;
};

void check_survives(const std::string& text) {
  const auto check = [&text](const auto& result, const auto& reparse) {
    if (const auto* e = std::get_if<ParseError>(&result)) {
      ASSERT_GE(e->column, 1u) << text;
      ASSERT_LE(e->column, text.size() + 1) << text;
      ASSERT_FALSE(e->message.empty());
      ASSERT_FALSE(e->describe(text).empty());
    } else {
      const std::string canonical = serialize(std::get<0>(result));
      const auto again = reparse(canonical);
      ASSERT_EQ(again.index(), 0u) << text << "\n" << canonical;
      ASSERT_EQ(std::get<0>(again), std::get<0>(result)) << canonical;
    }
  };
  check(parse_arguments(text), parse_arguments);
  check(parse_value(text), parse_value);
}

TEST(Robustness, MutatedLinesAndRandomBytes) {
  const std::string seeds[] = {
      "((T([8, 8, 8, 8, 8], f16), T([8, 8, 8, 8, 8], f16)), {})",
      "(([T([5, 5], f32), T([3, 3], i64), 42],), {'weight': T([3, 3], f32)})",
      "((T([128, 256], f16), [1024, 249, 249]), {'dtype': torch.float16, 'device': 'cuda'})",
      "((T([768], f16), T([4096, 768], f16), T([768, 768], f16, stride=(1, 768))), {})",
      ("((T([1, 64, 768], f16), [T([3072], f16), T([3072], f16)], 4, None, 2, 768, 0, 1, True, 0.0, True, "
       "False, [], None), {})"),
      "((T([8192, 50265], f16), T([8192, 50265], f16), 1, f16), {})",
      "((-1.5E+3, .5, 1., float('-inf'), math.inf, 'a\\'b\\x41'), {'d': torch.device('cuda:1')})",
      "((device(type='cuda', index=0), torch.strided, torch.channels_last, th.long), {})",
  };
  Mutator mutator(7);
  for (int i = 0; i < 50000; ++i) {
    check_survives(mutator.mutate(seeds[static_cast<size_t>(i) % std::size(seeds)]));
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (int i = 0; i < 10000; ++i) {
    check_survives(mutator.random_bytes());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Robustness, HugeInputsStayLinear) {
  std::string ints = "[";
  for (int i = 0; i < 100000; ++i) ints += "12345, ";
  ints += "]";
  EXPECT_EQ(testing::value_of(ints).as<List>().items.size(), 100000u);
  // Many keywords: the duplicate check must not be quadratic.
  std::string kwargs = "((), {";
  for (int i = 0; i < 50000; ++i) kwargs += "'k" + std::to_string(i) + "': " + std::to_string(i) + ", ";
  kwargs += "})";
  EXPECT_EQ(testing::args_of(kwargs).kwargs.size(), 50000u);
}

}  // namespace
}  // namespace backendbench::spec
