// results.jsonl: appended line by line, read back for resuming, repaired after a kill.
#include <gtest/gtest.h>

#include <fstream>

#include "data/temp_dir.h"
#include "models/results_file.h"

namespace backendbench::models {
namespace {

using testing::TempDir;

nlohmann::ordered_json line_for(const std::string& model) {
  return {{"model", {{"suite_name", "torch"}, {"model_name", model}}},
          {"experiment",
           {{"accelerator", "cpu"}, {"accelerator_model", "x"}, {"backend", "aten"}, {"kernels_dir", nullptr},
            {"dynamo", nullptr}, {"test", "eval"}, {"batch_size", 2}, {"dtype", "float32"}}},
          {"repeat", 1},
          {"metrics", {{"total_time", {0.5}}}}};
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ResultsFile, AppendsOneLineEachKeepingFieldOrderAndReadsThemBack) {
  TempDir dir;
  const auto path = dir.path() / "out" / "results.jsonl";
  {
    ResultsFile file(path);
    EXPECT_TRUE(file.lines().empty());
    file.append(line_for("a"));
    file.append(line_for("b"));
    EXPECT_TRUE(file.has("a|cpu|aten||None|eval|2|float32"));
  }
  const std::string text = read(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.rfind(R"({"model":{"suite_name":"torch","model_name":"a"},"experiment":{"accelerator":"cpu")", 0), 0u);
  ResultsFile again(path);
  EXPECT_EQ(again.lines().size(), 2u);
  EXPECT_TRUE(again.has("b|cpu|aten||None|eval|2|float32"));
  EXPECT_FALSE(again.has("c|cpu|aten||None|eval|2|float32"));
  EXPECT_EQ(again.dropped_partial_bytes(), 0u);
}

TEST(ResultsFile, APartialLastLineIsCutOffSoTheNextLineStartsClean) {
  TempDir dir;
  const std::string whole = line_for("a").dump() + "\n";
  const std::string partial = line_for("b").dump().substr(0, 40);
  const auto path = dir.write("results.jsonl", whole + partial);
  {
    ResultsFile file(path);
    EXPECT_EQ(file.lines().size(), 1u);
    EXPECT_FALSE(file.has("b|cpu|aten||None|eval|2|float32"));
    EXPECT_EQ(file.dropped_partial_bytes(), partial.size());
    file.append(line_for("b"));
  }
  EXPECT_EQ(read(path), whole + line_for("b").dump() + "\n");
}

TEST(ResultsFile, LinesThatAreNotResultsAreKeptButNotCountedAsDone) {
  TempDir dir;
  const std::string text = "not json\n" + line_for("a").dump() + "\n{\"model\": 1}\n\n";
  const auto path = dir.write("results.jsonl", text);
  ResultsFile file(path);
  EXPECT_EQ(file.lines().size(), 1u);
  EXPECT_TRUE(file.has("a|cpu|aten||None|eval|2|float32"));
  EXPECT_EQ(read(path), text);
}

TEST(ResultsFile, AnUnwritableFolderIsAnErrorNamingThePath) {
  TempDir dir;
  const auto blocker = dir.write("file", "x");
  EXPECT_THROW(ResultsFile(blocker / "results.jsonl"), std::exception);
}

}  // namespace
}  // namespace backendbench::models
