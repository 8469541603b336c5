#include "runner/prepare.h"

#include "inputs/constraints.h"
#include "inputs/materialize.h"
#include "inputs/stored_values.h"
#include "ops/bind.h"

namespace backendbench::runner {

std::variant<torch::jit::Stack, Failure> prepare_inputs(const c10::OperatorHandle& op,
                                                        const data::InputRecord& input, c10::Device device,
                                                        uint64_t seed) {
  if (!input.args) return Failure{"MalformedInput", input.error, ""};
  inputs::TensorFactory tensors(device, seed);
  std::variant<torch::jit::Stack, ops::BindError> bound;
  inputs::ConstraintResult constrained;
  if (auto f = capture([&] {
        using Kind = data::TensorValues::Kind;
        if (input.values.kind == Kind::stored) tensors.use_spans(inputs::stored_sample(input.values.file, input.values.index));
        if (input.values.kind == Kind::edge) tensors.mix_in_edges(input.values.edges);
        bound = ops::bind(op.schema(), *input.args, tensors);
        if (auto* stack = std::get_if<torch::jit::Stack>(&bound)) {
          tensors.check_spans_used();
          constrained = inputs::apply_input_constraints(op.schema(), *stack, seed);
        }
      })) {
    f->type = "InputError";
    f->message = "could not make the inputs: " + f->message;
    return *f;
  }
  if (auto* e = std::get_if<ops::BindError>(&bound)) {
    return Failure{"ArgumentError", op.schema().name() + ": " + e->message, ""};
  }
  if (!constrained.ok) return Failure{"InputError", "no valid input: " + constrained.reason, ""};
  return std::move(std::get<torch::jit::Stack>(bound));
}

}  // namespace backendbench::runner
