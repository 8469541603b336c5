// On a GPU (label gpu): `generate --dsl cuda` evaluates CUDA kernels an LLM
// wrote (here a scripted fake on loopback answering with the example CUDA relu,
// after one that does not compile), and the run folder evaluates unchanged.
#include "llm/e2e/llm_cli.h"

namespace backendbench::e2e {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kNotCompiling = R"(#include <backendbench/kernel.h>

__global__ void relu_kernel(const float* in, float* out, long n) { out[0] = undefined_device_helper(in[0]); }

at::Tensor relu_kernel_impl(const at::Tensor& self) { return at::empty_like(self); }

BACKENDBENCH_KERNEL(relu_kernel_impl)
)";

TEST_F(LlmCli, GenerateCudaKernelsAfterACompileErrorAndEvaluateTheRun) {
  const std::string example = read_file(std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cuda" /
                                        "relu" / "relu_implementation_1.cu");
  ASSERT_FALSE(example.empty());
  serve({testing::kernel_answer(kNotCompiling, "cuda"), testing::kernel_answer(example, "cuda")});
  const Outcome gen = run_llm("generate --suite smoke --dsl cuda --device cuda --run-id cuda_run");
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  const std::string metadata = read("generated_kernels/cuda_run/relu/metadata.txt");
  EXPECT_TRUE(has(metadata, "\nattempt_1: unusable; file relu_attempt_1.cu;")) << metadata;
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 2\n")) << metadata;
  EXPECT_TRUE(has(server_->prompt(1), "undefined_device_helper")) << server_->prompt(1);
  const Outcome pre = run("run --backend pregenerated --kernels-dir generated_kernels/cuda_run --suite smoke "
                          "--device cuda --log-dir out");
  ASSERT_EQ(pre.exit_code, 0) << pre.err;
  EXPECT_TRUE(has(pre.out, "correctness score (mean pass rate over all operators): 1.00")) << pre.out;
  EXPECT_EQ(files_containing(kFakeKey), std::vector<std::string>{});
}

}  // namespace
}  // namespace backendbench::e2e
