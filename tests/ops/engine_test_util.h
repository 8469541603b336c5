// Helpers shared by the engine tests (ops, inputs, check, runner, suite):
// parse-or-fail, resolve-or-fail, bind-or-fail and input records.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "data/inputs.h"
#include "inputs/materialize.h"
#include "ops/bind.h"
#include "ops/resolve.h"
#include "spec/parse.h"
#include "spec/value.h"

namespace backendbench::testing {

inline const c10::Device kCpu{c10::kCPU};

// EXPECT_TRUE(contains(message, "argument 'dim'")), printing the message when it fails.
inline ::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// Parses `((args), {kwargs})`, failing the current test on a parse error.
inline spec::Arguments parse_args(std::string_view text) {
  auto result = spec::parse_arguments(text);
  if (const auto* e = std::get_if<spec::ParseError>(&result)) {
    ADD_FAILURE() << e->describe(text);
    return {};
  }
  return std::get<spec::Arguments>(std::move(result));
}

inline spec::TensorSpec parse_tensor(std::string_view text) {
  auto result = spec::parse_value(text);
  if (const auto* e = std::get_if<spec::ParseError>(&result)) {
    ADD_FAILURE() << e->describe(text);
    return {};
  }
  const auto& v = std::get<spec::Value>(result);
  if (!v.is<spec::TensorSpec>()) {
    ADD_FAILURE() << text << " is not a tensor spec";
    return {};
  }
  return v.as<spec::TensorSpec>();
}

// The dispatcher's handle for `name`; throws (failing the test) when it does not resolve.
inline c10::OperatorHandle op_handle(std::string_view name) {
  auto resolved = ops::resolve(results::parse_operator_name(name));
  if (const auto* e = std::get_if<ops::ResolveError>(&resolved)) {
    throw std::runtime_error("could not resolve " + std::string(name) + ": " + e->message);
  }
  return std::get<c10::OperatorHandle>(resolved);
}

inline std::variant<torch::jit::Stack, ops::BindError> try_bind(std::string_view op_name,
                                                                std::string_view args_text,
                                                                uint64_t seed = 0) {
  inputs::TensorFactory tensors(kCpu, seed);
  return ops::bind(op_handle(op_name).schema(), parse_args(args_text), tensors);
}

// Binds and returns the stack; fails the test (empty stack) on a BindError.
inline torch::jit::Stack bind_ok(std::string_view op_name, std::string_view args_text, uint64_t seed = 0) {
  auto bound = try_bind(op_name, args_text, seed);
  if (const auto* e = std::get_if<ops::BindError>(&bound)) {
    ADD_FAILURE() << op_name << " " << args_text << ": unexpected BindError: " << e->message;
    return {};
  }
  return std::get<torch::jit::Stack>(std::move(bound));
}

// The BindError message; fails the test (empty message) when binding succeeded.
inline std::string bind_error(std::string_view op_name, std::string_view args_text) {
  auto bound = try_bind(op_name, args_text);
  if (const auto* e = std::get_if<ops::BindError>(&bound)) return e->message;
  ADD_FAILURE() << op_name << " " << args_text << ": expected a BindError";
  return {};
}

// Binds, then calls the operator through the dispatcher; returns its outputs.
inline torch::jit::Stack call_op(std::string_view op_name, std::string_view args_text) {
  torch::jit::Stack stack = bind_ok(op_name, args_text);
  op_handle(op_name).callBoxed(stack);
  return stack;
}

// An input record as a loader would produce it for well-formed text.
inline data::InputRecord record(std::string_view op_name, std::string_view args_text) {
  data::InputRecord r;
  r.op_name = std::string(op_name);
  r.args_text = std::string(args_text);
  r.args = parse_args(args_text);
  r.count = 1;
  return r;
}

}  // namespace backendbench::testing
