// Generation tasks from a suite and the dispatcher.
#include "llm/engine/tasks.h"

#include <sstream>
#include <variant>

#include "kernels/directory.h"
#include "kernels/scaffold.h"
#include "ops/resolve.h"

namespace backendbench::llm {

SuiteTasks operator_tasks(const suite::Suite& suite, const check::Tolerance& tolerance) {
  SuiteTasks out;
  for (const auto& tests : suite.operators) {
    const results::OperatorName name = results::parse_operator_name(tests.op_name);
    auto resolved = ops::resolve(name);
    if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
      out.unresolved.push_back(tests.op_name + ": " + e->message);
      continue;
    }
    const c10::OperatorHandle& op = std::get<c10::OperatorHandle>(resolved);
    std::ostringstream schema;
    schema << op.schema();
    OperatorTask t;
    t.suite_op_name = tests.op_name;
    t.result_op_name = name.short_name();
    t.qualified_name = kernels::qualified_name(op);
    t.schema = schema.str();
    t.folder = kernels::folder_name(op);
    t.function_name = kernels::kernel_function_name(op);
    t.cpp_signature = kernels::expected_signature(op.schema(), t.function_name);
    t.docs_url = kernels::docs_url(op.schema());
    t.yaml_func = kernels::yaml_name(op.schema());
    t.example_inputs = kernels::example_inputs(tests);
    t.correctness_tests = tests.correctness.size();
    t.performance_tests = tests.performance.size();
    t.atol = tolerance.atol;
    t.rtol = tolerance.rtol;
    out.tasks.push_back(std::move(t));
  }
  return out;
}

}  // namespace backendbench::llm
