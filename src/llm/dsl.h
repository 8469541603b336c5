// The language a generated kernel is written in (`--dsl`), and what follows
// from it: the file extension the kernel backends load, the code fence the
// answer must use, and how the prompt names the language. Torch-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace backendbench::llm {

enum class Dsl { triton, pytorch, cutedsl, helion, cuda, cpp };

// "triton", "pytorch", "cutedsl", "helion", "cuda", "cpp", as --dsl spells them.
std::string_view dsl_name(Dsl dsl);
std::optional<Dsl> parse_dsl(std::string_view name);
const std::vector<std::string>& dsl_names();

// ".py" for the Python DSLs, ".cu" for CUDA C++, ".cpp" for C++.
std::string_view kernel_extension(Dsl dsl);

// The language tag of the answer's code block: "python", "cuda" or "cpp".
std::string_view code_fence(Dsl dsl);

// Whether kernels in this language are Python files (loaded by the Python side).
bool is_python(Dsl dsl);

// The Python module a Python DSL needs ("triton", "cutlass.cute", "helion"), "" for the others.
std::string_view python_module(Dsl dsl);

}  // namespace backendbench::llm
