// List prices of common models (USD per million tokens; check the provider's
// page: --llm-price overrides them).
#include "llm/pricing.h"

#include <array>
#include <string_view>

namespace backendbench::llm {
namespace {

struct Listed {
  std::string_view prefix;
  Price price;
};

// Longest prefixes first, so that "claude-3-5-haiku" wins over "claude-3".
constexpr std::array<Listed, 14> kPrices{{
    {"claude-opus-4-5", {5, 25}},
    {"claude-opus-4", {15, 75}},
    {"claude-sonnet-4", {3, 15}},
    {"claude-haiku-4-5", {1, 5}},
    {"claude-3-7-sonnet", {3, 15}},
    {"claude-3-5-sonnet", {3, 15}},
    {"claude-3-5-haiku", {0.8, 4}},
    {"claude-3-opus", {15, 75}},
    {"claude-3-haiku", {0.25, 1.25}},
    {"gpt-4.1-mini", {0.4, 1.6}},
    {"gpt-4.1-nano", {0.1, 0.4}},
    {"gpt-4.1", {2, 8}},
    {"gpt-4o-mini", {0.15, 0.6}},
    {"gpt-4o", {2.5, 10}},
}};

}  // namespace

std::optional<Price> known_price(const std::string& model) {
  for (const auto& listed : kPrices) {
    if (model.starts_with(listed.prefix)) return listed.price;
  }
  return std::nullopt;
}

std::optional<Price> parse_price(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) return std::nullopt;
  try {
    size_t used_in = 0, used_out = 0;
    const std::string in = text.substr(0, comma), out = text.substr(comma + 1);
    Price p{std::stod(in, &used_in), std::stod(out, &used_out)};
    if (used_in != in.size() || used_out != out.size() || p.input_per_million < 0 || p.output_per_million < 0) {
      return std::nullopt;
    }
    return p;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

double cost_usd(const Price& price, const Usage& usage) {
  return (static_cast<double>(usage.input_tokens) * price.input_per_million +
          static_cast<double>(usage.output_tokens) * price.output_per_million) /
         1e6;
}

}  // namespace backendbench::llm
