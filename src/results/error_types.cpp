#include "results/error_types.h"

#include "util/name_table.h"

namespace backendbench::results {
namespace {

// One name per ErrorType, in its order (the last one is checked below).
constexpr util::NameTable<ErrorType, 37> kNames{{
    "MalformedInput", "ArgumentError", "UnknownOperator", "Exception", "OutOfMemoryError", "WorkerCrash",
    "Timeout", "WorkerStartFailed", "SandboxViolation", "KernelLoadError", "MissingKernelFunction", "TimingFailed", "ImpossibleTiming", "MismatchError", "PrecisionLoss", "SpecialValueMismatch",
    "WrongOutputStructure", "WrongDtype", "WrongShape", "WrongDevice", "WrongLayout", "WrongStrides",
    "InputMutated", "OutputAliasesInput", "MissingAlias", "OutputReused", "WrongInPlaceResult", "WrongOutResult",
    "ReferenceFallback", "ATenComputeCall", "StaleResult", "LateResult", "ShapeSpecialized", "WrongWhenTimed",
    "SideStreamWork", "GlobalStateChanged", "ATenReplaced",
}};
static_assert(kNames.names.back() == "ATenReplaced" && kNames.name(ErrorType::aten_replaced) == "ATenReplaced");

}  // namespace

std::string_view to_string(ErrorType type) { return kNames.name(type); }
std::optional<ErrorType> parse_error_type(std::string_view name) { return kNames.parse(name); }
std::span<const std::string_view> error_type_names() { return kNames.all(); }

bool is_wrong_result(ErrorType type) { return type >= ErrorType::mismatch; }

}  // namespace backendbench::results
