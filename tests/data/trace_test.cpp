#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "data/inputs.h"
#include "data/temp_dir.h"

namespace backendbench::data {
namespace {

using backendbench::testing::TempDir;

// The example of the TorchBench dataset card, verbatim (trailing spaces included).
constexpr std::string_view kCardExample =
    "Operator: aten.add.Tensor\n"
    "cnt: 156, ((T([1, 512, 768], f16), T([1, 512, 768], f16)), {})\n"
    "cnt: 89, ((T([32, 128], f32), T([32, 128], f32)), {})\n"
    "cnt: 0, ((T([10, 10], f16), T([10, 10], f16)), {})\n"
    "\n"
    "Operator: aten.relu.default  \n"
    "cnt: 234, ((T([64, 256], f16),), {})\n";

TEST(TraceFiles, CardExampleLoads) {
  TempDir dir;
  const auto file = dir.write("BertForMaskedLM_training.txt", kCardExample);
  const LoadedInputs loaded = load_traces(file);

  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 4u);
  const InputRecord& first = loaded.records[0];
  EXPECT_EQ(first.op_name, "aten.add.Tensor");
  EXPECT_EQ(first.args_text, "((T([1, 512, 768], f16), T([1, 512, 768], f16)), {})");
  ASSERT_TRUE(first.args.has_value());
  ASSERT_EQ(first.args->args.size(), 2u);
  EXPECT_EQ(first.args->args[0].as<spec::TensorSpec>().shape, (std::vector<int64_t>{1, 512, 768}));
  EXPECT_EQ(first.args->args[0].as<spec::TensorSpec>().dtype, spec::Dtype::f16);
  EXPECT_TRUE(first.error.empty());
  EXPECT_EQ(first.count, 156);
  EXPECT_FALSE(first.is_synthetic);
  EXPECT_EQ(first.where.describe(), file.string() + ":2");
  EXPECT_EQ(first.in_models, std::vector<std::string>{"BertForMaskedLM_training"});
  EXPECT_EQ(first.in_models_count, 1);

  EXPECT_EQ(loaded.records[1].count, 89);
  EXPECT_EQ(loaded.records[2].count, 0);
  EXPECT_TRUE(loaded.records[2].is_synthetic);
  EXPECT_EQ(loaded.records[3].op_name, "aten.relu.default");
  EXPECT_EQ(loaded.records[3].args_text, "((T([64, 256], f16),), {})");
  EXPECT_EQ(loaded.records[3].count, 234);
  EXPECT_EQ(loaded.records[3].where.line, 7u);
}

TEST(TraceFiles, ToleratesCrlfIndentationAndBlankLines) {
  TempDir dir;
  const auto file = dir.write("m.txt",
                              "\r\n  Operator: aten.mul.Tensor  \r\n\r\n"
                              "\tcnt: 3, ((T([4], f32), 2.0), {}) \r\n"
                              "   \r\n");
  const LoadedInputs loaded = load_traces(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 1u);
  EXPECT_EQ(loaded.records[0].op_name, "aten.mul.Tensor");
  EXPECT_EQ(loaded.records[0].args_text, "((T([4], f32), 2.0), {})");
  EXPECT_EQ(loaded.records[0].count, 3);
  EXPECT_EQ(loaded.records[0].where.line, 4u);
}

TEST(TraceFiles, MultipleOperatorsKeepFirstSeenOrder) {
  TempDir dir;
  const auto file = dir.write("m.txt",
                              "Operator: aten.relu.default\n"
                              "cnt: 1, ((T([2], f16),), {})\n"
                              "Operator: aten.sum.dim_IntList\n"
                              "cnt: 2, ((T([2, 3], f32), [1], True), {})\n"
                              "Operator: aten.relu.default\n"
                              "cnt: 5, ((T([8], f16),), {})\n");
  const LoadedInputs loaded = load_traces(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 3u);
  EXPECT_EQ(loaded.records[0].op_name, "aten.relu.default");
  EXPECT_EQ(loaded.records[1].op_name, "aten.sum.dim_IntList");
  EXPECT_EQ(loaded.records[1].args_text, "((T([2, 3], f32), [1], True), {})");
  EXPECT_EQ(loaded.records[2].op_name, "aten.relu.default");
  EXPECT_EQ(loaded.records[2].count, 5);
}

TEST(TraceFiles, DuplicatesInOneFileMerge) {
  TempDir dir;
  const auto file = dir.write("m.txt",
                              "Operator: aten.add.Tensor\n"
                              "cnt: 2, ((T([2], f16), T([2], f16)), {})\n"
                              "cnt: 3, ((T([3], f16), T([3], f16)), {})\n"
                              "cnt: 4, ((T([2], f16), T([2], f16)), {})\n");
  const LoadedInputs loaded = load_traces(file);
  ASSERT_EQ(loaded.records.size(), 2u);
  EXPECT_EQ(loaded.records[0].count, 6);
  EXPECT_EQ(loaded.records[0].where.line, 2u);
  EXPECT_EQ(loaded.records[0].in_models, std::vector<std::string>{"m"});
  EXPECT_EQ(loaded.records[0].in_models_count, 1);
}

TEST(TraceFiles, SameOperatorDifferentArgsStaySeparate) {
  TempDir dir;
  const auto file = dir.write("m.txt",
                              "Operator: aten.add.Tensor\n"
                              "cnt: 1, ((T([2], f16), T([2], f16)), {})\n"
                              "Operator: aten.sub.Tensor\n"
                              "cnt: 1, ((T([2], f16), T([2], f16)), {})\n");
  EXPECT_EQ(load_traces(file).records.size(), 2u);
}

TEST(TraceFiles, FolderMergesDuplicatesAcrossFiles) {
  TempDir dir;
  // Written out of order: files are read sorted by name.
  dir.write("ResNet50_training.txt",
            "Operator: aten.add.Tensor\n"
            "cnt: 10, ((T([2], f16), T([2], f16)), {})\n"
            "Operator: aten.relu.default\n"
            "cnt: 7, ((T([2], f16),), {})\n");
  const auto bert = dir.write("BertForMaskedLM_training.txt",
                              "Operator: aten.add.Tensor\n"
                              "cnt: 0, ((T([9], f32), T([9], f32)), {})\n"
                              "cnt: 5, ((T([2], f16), T([2], f16)), {})\n");

  const LoadedInputs loaded = load_traces(dir.path());
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 3u);
  const InputRecord& shared = loaded.records[1];
  EXPECT_EQ(shared.op_name, "aten.add.Tensor");
  EXPECT_EQ(shared.args_text, "((T([2], f16), T([2], f16)), {})");
  EXPECT_EQ(shared.count, 15);
  EXPECT_EQ(shared.in_models,
            (std::vector<std::string>{"BertForMaskedLM_training", "ResNet50_training"}));
  EXPECT_EQ(shared.in_models_count, 2);
  EXPECT_EQ(shared.where.describe(), bert.string() + ":3");
  EXPECT_TRUE(loaded.records[0].is_synthetic);
  EXPECT_EQ(loaded.records[2].op_name, "aten.relu.default");
  EXPECT_EQ(loaded.records[2].in_models, std::vector<std::string>{"ResNet50_training"});
}

TEST(TraceFiles, SyntheticOnlyWhenEveryOccurrenceHasCountZero) {
  TempDir dir;
  dir.write("a.txt",
            "Operator: aten.add.Tensor\n"
            "cnt: 0, ((T([2], f16), T([2], f16)), {})\n"
            "cnt: 0, ((T([3], f16), T([3], f16)), {})\n");
  dir.write("b.txt",
            "Operator: aten.add.Tensor\n"
            "cnt: 0, ((T([2], f16), T([2], f16)), {})\n"
            "cnt: 4, ((T([3], f16), T([3], f16)), {})\n");
  const LoadedInputs loaded = load_traces(dir.path());
  ASSERT_EQ(loaded.records.size(), 2u);
  EXPECT_TRUE(loaded.records[0].is_synthetic);
  EXPECT_EQ(loaded.records[0].count, 0);
  EXPECT_FALSE(loaded.records[1].is_synthetic);
  EXPECT_EQ(loaded.records[1].count, 4);
}

TEST(TraceFiles, StrideKeywordFormIsCanonicalisedAndMerges) {
  TempDir dir;
  const auto file = dir.write("m.txt",
                              "Operator: aten.clone.default\n"
                              "cnt: 1, ((T([2, 3], f16, stride=(1, 2)),), {})\n"
                              "cnt: 2, ((T([2, 3], f16, [1, 2]),), {})\n");
  const LoadedInputs loaded = load_traces(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 1u);
  EXPECT_EQ(loaded.records[0].args_text, "((T([2, 3], f16, [1, 2]),), {})");
  EXPECT_EQ(loaded.records[0].count, 3);
  const auto& tensor = loaded.records[0].args->args[0].as<spec::TensorSpec>();
  EXPECT_EQ(tensor.stride, (std::vector<int64_t>{1, 2}));
}

TEST(TraceFiles, MalformedLinesNameFileAndLineAndGoodLinesStillLoad) {
  TempDir dir;
  const auto file = dir.write("broken.txt",
                              "this is not a trace line\n"                     // 1: diagnostic
                              "cnt: 1, ((T([2], f16),), {})\n"                 // 2: diagnostic
                              "Operator: aten.relu.default\n"                  // 3
                              "cnt: 4, ((T([2], f16),), {})\n"                 // 4: good
                              "cnt: 5, ((T([2, f16),), {})\n"                  // 5: bad args
                              "cnt: many, ((T([3], f16),), {})\n"              // 6: bad count
                              "cnt: -2, ((T([3], f16),), {})\n"                // 7: bad count
                              "cnt: 8\n"                                       // 8: no args
                              "garbage garbage\n"                              // 9: diagnostic
                              "cnt: 6, ((T([6], f16),), {})\n"                 // 10: good
                              "Operator:   \n"                                 // 11: diagnostic
                              "cnt: 1, ((T([2], f16),), {})\n"                 // 12: diagnostic
                              "Operator: aten.add.Tensor\n"                    // 13
                              "cnt: 1, ((T([1], f32), T([1], f32)), {})\n");   // 14: good
  const LoadedInputs loaded = load_traces(file);
  const std::string f = file.string();

  ASSERT_EQ(loaded.diagnostics.size(), 5u);
  const std::vector<size_t> diagnostic_lines{1, 2, 9, 11, 12};
  for (size_t i = 0; i < diagnostic_lines.size(); ++i) {
    EXPECT_EQ(loaded.diagnostics[i].where.describe(),
              f + ":" + std::to_string(diagnostic_lines[i]));
    EXPECT_FALSE(loaded.diagnostics[i].message.empty());
  }
  EXPECT_NE(loaded.diagnostics[1].message.find("before any"), std::string::npos);

  ASSERT_EQ(loaded.records.size(), 7u);
  EXPECT_EQ(loaded.records[0].where.line, 4u);
  EXPECT_TRUE(loaded.records[0].error.empty());

  const InputRecord& bad_args = loaded.records[1];
  EXPECT_EQ(bad_args.op_name, "aten.relu.default");
  EXPECT_FALSE(bad_args.args.has_value());
  EXPECT_EQ(bad_args.args_text, "((T([2, f16),), {})");
  EXPECT_EQ(bad_args.count, 5);
  EXPECT_EQ(bad_args.error.rfind(f + ":5: column ", 0), 0u) << bad_args.error;

  for (size_t i : {2u, 3u, 4u}) {
    const InputRecord& bad_count = loaded.records[i];
    EXPECT_EQ(bad_count.op_name, "aten.relu.default");
    EXPECT_FALSE(bad_count.args.has_value());
    EXPECT_FALSE(bad_count.is_synthetic);
    const std::string prefix = f + ":" + std::to_string(i + 4) + ": ";
    EXPECT_EQ(bad_count.error.rfind(prefix, 0), 0u) << bad_count.error;
  }
  EXPECT_EQ(loaded.records[2].args_text, "((T([3], f16),), {})");
  EXPECT_NE(loaded.records[2].error.find("many"), std::string::npos);

  EXPECT_EQ(loaded.records[5].where.line, 10u);
  EXPECT_EQ(loaded.records[6].op_name, "aten.add.Tensor");
}

TEST(TraceFiles, MissingPathAndEmptyFolderAreDiagnostics) {
  TempDir dir;
  const LoadedInputs missing = load_traces(dir.path() / "nope.txt");
  ASSERT_EQ(missing.diagnostics.size(), 1u);
  EXPECT_EQ(missing.diagnostics[0].where.describe(), (dir.path() / "nope.txt").string());

  const LoadedInputs empty = load_traces(dir.path());
  EXPECT_TRUE(empty.records.empty());
  ASSERT_EQ(empty.diagnostics.size(), 1u);
  EXPECT_EQ(empty.diagnostics[0].message, "folder has no trace files (*.txt, searched at any depth)");

  dir.write("dataset.json", "[]");
  const LoadedInputs others = load_traces(dir.path());
  ASSERT_EQ(others.diagnostics.size(), 1u);
  EXPECT_NE(others.diagnostics[0].message.find("it holds 1 other file(s), such as "), std::string::npos);
  EXPECT_NE(others.diagnostics[0].message.find("dataset.json"), std::string::npos);
}

// The published layout: a folder per model family, a file per model.
TEST(TraceFiles, FolderOfFoldersIsReadAtAnyDepth) {
  TempDir dir;
  for (const char* sub : {"input_configs", "input_configs/hf_train", "input_configs/timm_train",
                          "input_configs/torchbench_train", "input_configs/.git", "input_configs/timm_train/deeper"}) {
    std::filesystem::create_directory(dir.path() / sub);
  }
  dir.write("input_configs/hf_train/BertForMaskedLM_training.txt",
            "Operator: aten.add.Tensor\ncnt: 2, ((T([2], f16), T([2], f16)), {})\n");
  dir.write("input_configs/timm_train/resnet18_training.txt",
            "Operator: aten.add.Tensor\ncnt: 3, ((T([2], f16), T([2], f16)), {})\n"
            "Operator: aten.relu.default\ncnt: 1, ((T([4], f16),), {})\n");
  dir.write("input_configs/timm_train/deeper/vit_training.txt", "Operator: aten.relu.default\ncnt: 1, ((T([4], f16),), {})\n");
  dir.write("input_configs/torchbench_train/hf_Bert_training.txt",
            "Operator: aten.mul.Tensor\ncnt: 1, ((T([3], f32), 2.0), {})\n");
  dir.write("input_configs/README.md", "Operator: aten.sub.Tensor\ncnt: 1, ((T([3], f32), T([3], f32)), {})\n");
  dir.write("input_configs/.git/config.txt", "Operator: aten.sub.Tensor\ncnt: 1, ((T([3], f32), T([3], f32)), {})\n");

  const LoadedInputs loaded = load_traces(dir.path() / "input_configs");
  EXPECT_TRUE(loaded.diagnostics.empty()) << loaded.diagnostics[0].message;
  ASSERT_EQ(loaded.records.size(), 3u);  // README.md and the hidden folder are not read
  const InputRecord& add = loaded.records[0];
  EXPECT_EQ(add.op_name, "aten.add.Tensor");
  EXPECT_EQ(add.count, 5);
  EXPECT_EQ(add.in_models, (std::vector<std::string>{"BertForMaskedLM_training", "resnet18_training"}));
  EXPECT_EQ(add.in_folders, (std::vector<std::string>{"hf_train", "timm_train"}));
  EXPECT_EQ(add.where.describe(), (dir.path() / "input_configs/hf_train/BertForMaskedLM_training.txt").string() + ":2");
  const InputRecord& relu = loaded.records[1];
  // Files are read in path order: timm_train/deeper/ before timm_train/resnet18_training.txt.
  EXPECT_EQ(relu.in_models, (std::vector<std::string>{"vit_training", "resnet18_training"}));
  EXPECT_EQ(relu.in_folders, (std::vector<std::string>{"timm_train/deeper", "timm_train"}));
  EXPECT_EQ(loaded.records[2].in_folders, std::vector<std::string>{"torchbench_train"});
  // A single file names no folder.
  EXPECT_TRUE(load_traces(dir.path() / "input_configs/hf_train/BertForMaskedLM_training.txt").records[0].in_folders.empty());
}

TEST(TraceFiles, AFileWithNoTraceLineIsOneDiagnostic) {
  TempDir dir;
  const auto binary = dir.write("weights.txt", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\n\x1b[31mred\n", 26) +
                                                    std::string(5000, 'x') + "\nmore\nlines\n");
  const LoadedInputs loaded = load_traces(binary);
  EXPECT_TRUE(loaded.records.empty());
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  const std::string& message = loaded.diagnostics[0].message;
  EXPECT_EQ(message.rfind("not a trace file: no 'Operator: NAME' or 'cnt: N, ARGS' line (it starts with ", 0), 0u)
      << message;
  EXPECT_NE(message.find("\\x89PNG"), std::string::npos) << message;
  for (char c : message) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << message;

  const LoadedInputs empty = load_traces(dir.write("empty.txt", "\n  \n"));
  ASSERT_EQ(empty.diagnostics.size(), 1u);
  EXPECT_EQ(empty.diagnostics[0].message, "empty trace file");
}

TEST(TraceFiles, ControlBytesInLinesAndNamesAreEscaped) {
  TempDir dir;
  const auto file = dir.write("m\x1b[2Jx.txt",
                              "Operator: aten.relu.default\n"
                              "cnt: 1, ((T([2], f32),), {})\n"
                              "junk \x1b]0;owned\x07 line\n"
                              "Operator: aten.\x1b[31mrelu.default\n"
                              "cnt: 1, ((T([2], f32),), {})\n"
                              "Operator: aten.relu.default\n"
                              "cnt: \x1b[1m2, ((T([3], f32),), {})\n");
  const LoadedInputs loaded = load_traces(file);
  ASSERT_EQ(loaded.diagnostics.size(), 3u);
  const auto clean = [](const std::string& text) {
    return std::none_of(text.begin(), text.end(), [](char c) { return c == '\x1b' || c == '\x07'; });
  };
  for (const auto& d : loaded.diagnostics) {
    EXPECT_TRUE(clean(d.where.describe() + d.message)) << d.message;
    EXPECT_NE(d.where.describe().find("m\\x1b[2Jx.txt"), std::string::npos) << d.where.describe();
  }
  EXPECT_NE(loaded.diagnostics[0].message.find("junk \\x1b]0;owned\\x07 line"), std::string::npos);
  EXPECT_EQ(loaded.diagnostics[1].message, "'Operator:' line with an invalid operator name: aten.\\x1b[31mrelu.default");
  EXPECT_NE(loaded.diagnostics[2].message.find("before any valid 'Operator:' line"), std::string::npos);
  ASSERT_EQ(loaded.records.size(), 2u);
  EXPECT_TRUE(clean(loaded.records[1].error)) << loaded.records[1].error;
  EXPECT_NE(loaded.records[1].error.find("bad count '\\x1b[1m2'"), std::string::npos) << loaded.records[1].error;
}

TEST(TraceFiles, SourceLocationDescribe) {
  EXPECT_EQ((SourceLocation{"a/b.txt", 12}).describe(), "a/b.txt:12");
  EXPECT_EQ((SourceLocation{"data.json", 0}).describe(), "data.json");
}

}  // namespace
}  // namespace backendbench::data
