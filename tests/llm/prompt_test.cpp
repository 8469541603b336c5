// Prompts say what the kernel backends load and the rules a kernel keeps;
// code comes out of answers however models fence it.
#include <gtest/gtest.h>

#include "llm/prompt.h"
#include "llm/task_fixture.h"

namespace backendbench::llm {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Prompt, NativeKernelPromptHasTheSchemaSignatureFileInputsAndRules) {
  const std::string p = initial_prompt(add_task(), Dsl::cpp);
  EXPECT_TRUE(has(p, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")) << p;
  EXPECT_TRUE(has(p, "https://docs.pytorch.org/docs/stable/generated/torch.add.html")) << p;
  EXPECT_TRUE(has(p, "`- func: add.Tensor(`")) << p;
  EXPECT_TRUE(has(p, "add__Tensor/add__Tensor_attempt_<N>.cpp")) << p;
  EXPECT_TRUE(has(p, "at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, "
                     "const at::Scalar& alpha)"))
      << p;
  EXPECT_TRUE(has(p, "BACKENDBENCH_KERNEL(add__Tensor_kernel_impl)")) << p;
  EXPECT_TRUE(has(p, "#include <backendbench/kernel.h>")) << p;
  EXPECT_TRUE(has(p, "- `((T([4, 8], f32), T([4, 8], f32)), {})`")) << p;
  EXPECT_TRUE(has(p, "Do not call `aten::add.Tensor` or any other overload of `add`")) << p;
  EXPECT_TRUE(has(p, "`at::add`")) << p;
  EXPECT_TRUE(has(p, "no side streams")) << p;
  EXPECT_TRUE(has(p, "Keep nothing across calls")) << p;
  EXPECT_TRUE(has(p, "data pointers")) << p;
  EXPECT_TRUE(has(p, "one ```cpp code block")) << p;
  EXPECT_TRUE(has(p, "0.01 + 0.01 * |expected|")) << p;
}

TEST(Prompt, EachDslNamesItsLanguageFileAndFence) {
  const std::string triton = initial_prompt(add_task(), Dsl::triton);
  EXPECT_TRUE(has(triton, "Write a Triton kernel")) << triton;
  EXPECT_TRUE(has(triton, "add__Tensor_attempt_<N>.py")) << triton;
  EXPECT_TRUE(has(triton, "def add__Tensor_kernel_impl(*args, **kwargs):")) << triton;
  EXPECT_TRUE(has(triton, "import triton.language as tl")) << triton;
  EXPECT_TRUE(has(triton, "`torch.add`")) << triton;
  EXPECT_TRUE(has(triton, "one ```python code block")) << triton;
  const std::string cuda = initial_prompt(add_task(), Dsl::cuda);
  EXPECT_TRUE(has(cuda, "add__Tensor_attempt_<N>.cu")) << cuda;
  EXPECT_TRUE(has(cuda, "getCurrentCUDAStream")) << cuda;
  EXPECT_TRUE(has(initial_prompt(add_task(), Dsl::helion), "import helion.language as hl"));
  EXPECT_TRUE(has(initial_prompt(add_task(), Dsl::cutedsl), "import cutlass.cute as cute"));
}

TEST(Prompt, RefinementCarriesThePreviousCodeAndFindings) {
  const std::string p = refinement_prompt(add_task(), Dsl::cpp,
                                          {.number = 2, .code = "int broken(;\n", .feedback = "error: expected ')'"});
  EXPECT_TRUE(has(p, "## Your previous attempt (attempt 2)")) << p;
  EXPECT_TRUE(has(p, "```cpp\nint broken(;\n")) << p;
  EXPECT_TRUE(has(p, "error: expected ')'")) << p;
  EXPECT_TRUE(has(p, "Write a corrected kernel")) << p;
}

TEST(ExtractCode, TakesTheLongestBlockInTheDslsLanguage) {
  const std::string answer = "Usage:\n```bash\nrun it\n```\nThe kernel:\n```c++\nint a;\nint b;\n```\n"
                             "and a helper:\n```cpp\nint c;\n```\n";
  EXPECT_EQ(extract_code(answer, Dsl::cpp).value(), "int a;\nint b;\n");
  EXPECT_EQ(extract_code("```python\nimport torch\n```", Dsl::triton).value(), "import torch\n");
  EXPECT_EQ(extract_code("```cu\n__global__ void k() {}\n```", Dsl::cuda).value(), "__global__ void k() {}\n");
}

TEST(ExtractCode, AnUntaggedBlockWhenNoneIsTagged) {
  EXPECT_EQ(extract_code("```\nint a;\n```", Dsl::cpp).value(), "int a;\n");
}

TEST(ExtractCode, SaysWhyThereIsNoCode) {
  std::string why;
  EXPECT_FALSE(extract_code("I cannot help with that.", Dsl::cpp, &why));
  EXPECT_EQ(why, "the answer has no ```cpp code block");
  EXPECT_FALSE(extract_code("```cpp\nint a; // cut off", Dsl::cpp, &why));
  EXPECT_TRUE(has(why, "not closed")) << why;
  EXPECT_FALSE(extract_code("```python\nimport torch\n```", Dsl::cpp, &why));
  EXPECT_TRUE(has(why, "tagged 'python'")) << why;
  EXPECT_FALSE(extract_code("```cpp\n\n```", Dsl::cpp, &why));
}

TEST(Dsl, NamesExtensionsAndFences) {
  for (const auto& name : dsl_names()) EXPECT_EQ(dsl_name(*parse_dsl(name)), name);
  EXPECT_FALSE(parse_dsl("fortran"));
  EXPECT_EQ(kernel_extension(Dsl::triton), ".py");
  EXPECT_EQ(kernel_extension(Dsl::cuda), ".cu");
  EXPECT_EQ(kernel_extension(Dsl::cpp), ".cpp");
  EXPECT_TRUE(is_python(Dsl::helion));
  EXPECT_FALSE(is_python(Dsl::cpp));
}

}  // namespace
}  // namespace backendbench::llm
