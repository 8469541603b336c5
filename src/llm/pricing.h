// What a run's tokens cost: list prices of known models, in US dollars per
// million input and output tokens, or the prices given with --llm-price.
// Torch-free.
#pragma once

#include <optional>
#include <string>

#include "llm/client.h"

namespace backendbench::llm {

struct Price {
  double input_per_million = 0;
  double output_per_million = 0;
};

// The list price of `model` (Anthropic's Claude models and OpenAI's GPT-4o
// and GPT-4.1 families, by name prefix); absent for others.
std::optional<Price> known_price(const std::string& model);

// "3,15" -> {3, 15}; absent when the text is not two non-negative numbers.
std::optional<Price> parse_price(const std::string& text);

double cost_usd(const Price& price, const Usage& usage);

}  // namespace backendbench::llm
