#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "ops/resolve.h"

namespace backendbench::ops {
namespace {

// The resolved schema's "name.overload" ("aten::relu" for a default overload).
std::string schema_of(std::string_view text) {
  auto resolved = resolve(results::parse_operator_name(text));
  if (const auto* e = std::get_if<ResolveError>(&resolved)) {
    ADD_FAILURE() << text << ": " << e->message;
    return {};
  }
  const auto& name = std::get<c10::OperatorHandle>(resolved).schema().operator_name();
  return name.name + (name.overload_name.empty() ? "" : "." + name.overload_name);
}

std::string error_of(std::string_view text) {
  auto resolved = resolve(results::parse_operator_name(text));
  if (const auto* e = std::get_if<ResolveError>(&resolved)) return e->message;
  ADD_FAILURE() << text << " resolved, but an error was expected";
  return {};
}

TEST(Resolve, EverySpellingOfAddTensor) {
  for (const char* text : {"aten.add.Tensor", "add.Tensor", "aten::add.Tensor"}) {
    EXPECT_EQ(schema_of(text), "aten::add.Tensor") << text;
  }
}

TEST(Resolve, DefaultOverload) {
  for (const char* text : {"relu", "aten.relu.default", "aten::relu", "relu.default", "aten.relu"}) {
    EXPECT_EQ(schema_of(text), "aten::relu") << text;
  }
}

TEST(Resolve, SchemaHasTheOperatorsArguments) {
  auto resolved = resolve(results::parse_operator_name("aten.add.Tensor"));
  ASSERT_TRUE(std::holds_alternative<c10::OperatorHandle>(resolved));
  const auto& args = std::get<c10::OperatorHandle>(resolved).schema().arguments();
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].name(), "self");
  EXPECT_EQ(args[1].name(), "other");
  EXPECT_EQ(args[2].name(), "alpha");
  EXPECT_TRUE(args[2].kwarg_only());
}

TEST(OperatorNameTest, ParsesParts) {
  const results::OperatorName add = results::parse_operator_name("aten.add.Tensor");
  EXPECT_EQ(add.ns, "aten");
  EXPECT_EQ(add.name, "add");
  EXPECT_EQ(add.overload, "Tensor");

  const results::OperatorName relu = results::parse_operator_name("relu");
  EXPECT_EQ(relu.ns, "aten");
  EXPECT_EQ(relu.name, "relu");
  EXPECT_EQ(relu.overload, "");

  const results::OperatorName inplace = results::parse_operator_name("aten::add_.Tensor");
  EXPECT_EQ(inplace.name, "add_");
  EXPECT_EQ(inplace.overload, "Tensor");
}

TEST(OperatorNameTest, Forms) {
  const results::OperatorName add = results::parse_operator_name("add.Tensor");
  EXPECT_EQ(add.dotted(), "aten.add.Tensor");
  EXPECT_EQ(add.short_name(), "add.Tensor");
  EXPECT_EQ(add.qualified(), "aten::add.Tensor");

  const results::OperatorName relu = results::parse_operator_name("aten.relu.default");
  EXPECT_EQ(relu.dotted(), "aten.relu.default");
  EXPECT_EQ(relu.short_name(), "relu.default");
  EXPECT_EQ(relu.qualified(), "aten::relu");
  EXPECT_EQ(results::parse_operator_name("relu").short_name(), "relu.default");
}

TEST(Resolve, UnknownOperatorIsNamed) {
  const std::string message = error_of("aten.not_an_op.default");
  EXPECT_NE(message.find("not_an_op"), std::string::npos) << message;
  EXPECT_NE(message.find("aten.not_an_op.default"), std::string::npos) << message;
}

TEST(Resolve, MissingDefaultOverloadListsTheOverloads) {
  const std::string message = error_of("aten.add");
  EXPECT_NE(message.find("aten.add.default"), std::string::npos) << message;
  EXPECT_NE(message.find("Tensor"), std::string::npos) << message;
  EXPECT_NE(message.find("Scalar"), std::string::npos) << message;
}

TEST(Resolve, UnknownOverloadListsTheOverloads) {
  const std::string message = error_of("aten.relu.Tensor");
  EXPECT_NE(message.find("relu"), std::string::npos) << message;
  EXPECT_NE(message.find("default"), std::string::npos) << message;
}

TEST(Resolve, EmptyNameIsAnError) {
  EXPECT_FALSE(error_of("").empty());
}

}  // namespace
}  // namespace backendbench::ops
