// The HTML reports as a person sees them: rendered by headless Chromium
// (Debian's package, installed by scripts/setup.sh), the screenshot is not
// blank and the page ran its script to the end without an error. Pages:
// report.html of a smoke run and of a small torchbench run, compare.html of
// two runs, and the models page of a results.jsonl.
#include "png.h"
#include "report_runs.h"

namespace backendbench::e2e {
namespace {

class Browser : public CliTest {
 protected:
  void SetUp() override {
#ifndef BACKENDBENCH_CHROMIUM
    GTEST_SKIP() << "no chromium was found when the build was configured (scripts/setup.sh installs it)";
#endif
    CliTest::SetUp();
  }

  // Runs chromium headless on `page` with `mode` (--screenshot=... or --dump-dom); its stdout.
  std::string chromium(const std::filesystem::path& page, const std::string& mode) {
#ifdef BACKENDBENCH_CHROMIUM
    const auto profile = dir_ / ("profile_" + std::to_string(++calls_));
    const auto out = dir_ / "chromium_out.txt";
    const std::string cmd = std::string("'") + BACKENDBENCH_CHROMIUM +
                            "' --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                            "--window-size=1400,2000 --user-data-dir='" + profile.string() + "' " + mode + " 'file://" +
                            std::filesystem::absolute(page).string() + "' >'" + out.string() + "' 2>/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return read_file(out);
#else
    (void)page;
    (void)mode;
    return "";
#endif
  }

  // The page renders with something drawn and its script ran without an error.
  void expect_rendered(const std::filesystem::path& page) {
    ASSERT_TRUE(std::filesystem::exists(page)) << page;
    const std::string dom = chromium(page, "--dump-dom");
    EXPECT_NE(dom.find("data-page-ready=\"1\""), std::string::npos) << page << ": the script did not run to its end";
    // The attribute the page's error hook sets on <html> (its own script text names it too).
    EXPECT_EQ(dom.find("data-script-error=\""), std::string::npos)
        << page << ": " << dom.substr(dom.find("data-script-error=\""), 300);
    const auto shot = dir_ / (page.stem().string() + "_" + std::to_string(calls_) + ".png");
    chromium(page, "--screenshot='" + shot.string() + "'");
    const Image image = read_png(shot.string());
    EXPECT_EQ(image.width, 1400u);
    EXPECT_GT(drawn_share(image), 0.005) << page << ": the screenshot is (nearly) blank";
  }

  int calls_ = 0;
};

// The checks themselves: a blank page whose script throws is seen as such.
TEST_F(Browser, TheChecksSeeAScriptErrorAndABlankPage) {
  write("broken.html",
        "<!DOCTYPE html><html><head><script>window.onerror = function (m) {"
        " document.documentElement.setAttribute(\"data-script-error\", String(m)); };</script></head>"
        "<body><script>no_such_function();</script></body></html>");
  EXPECT_NE(chromium(dir_ / "broken.html", "--dump-dom").find("data-script-error=\""), std::string::npos);
  const auto shot = dir_ / "broken.png";
  chromium(dir_ / "broken.html", "--screenshot='" + shot.string() + "'");
  EXPECT_LT(drawn_share(read_png(shot.string())), 0.001);
}

TEST_F(Browser, RunReportsRenderWithoutScriptErrors) {
  ASSERT_EQ(run("--suite smoke --device cpu --log-dir smoke").exit_code, 0);
  expect_rendered(dir_ / "smoke" / "report.html");
  write("model.txt", kReportTrace);
  ASSERT_EQ(run("--suite torchbench --data model.txt --device cpu --log-dir torchbench").exit_code, 0);
  expect_rendered(dir_ / "torchbench" / "report.html");
}

TEST_F(Browser, CompareAndModelPagesRenderWithoutScriptErrors) {
  write("model.txt", kReportTrace);
  ASSERT_EQ(run("--suite torchbench --data model.txt --device cpu --log-dir a").exit_code, 0);
  plant_regression(dir_ / "a", dir_ / "b", "relu.default", "((T([64, 64], f16),), {})", 3.0);
  ASSERT_EQ(run("compare a b --out cmp").exit_code, 0);
  expect_rendered(dir_ / "cmp" / "compare.html");

  write("results.jsonl",
        R"({"model": {"suite_name": "timm", "model_name": "resnet18"}, "experiment": {"accelerator": "cpu", "accelerator_model": "x86", "dynamo": null, "test": "eval", "batch_size": 1}, "repeat": 2, "iterations_per_run": 1, "metrics": {"total_time": [0.02, 0.021], "per_iter_time": [0.02, 0.021]}, "timestamp": 1.0, "verification_code": "PASS"}
{"model": {"suite_name": "timm", "model_name": "resnet18"}, "experiment": {"accelerator": "cpu", "accelerator_model": "x86", "dynamo": "inductor", "test": "eval", "batch_size": 1}, "repeat": 2, "iterations_per_run": 1, "metrics": {"total_time": [0.01, 0.011], "per_iter_time": [0.01, 0.011]}, "timestamp": 2.0, "verification_code": "PASS"}
)");
  ASSERT_EQ(run("report results.jsonl").exit_code, 0);
  expect_rendered(dir_ / "results.html");
}

}  // namespace
}  // namespace backendbench::e2e
