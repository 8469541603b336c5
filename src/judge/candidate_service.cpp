#include "judge/candidate_service.h"

#include "check/compare.h"
#include "judge/wire.h"
#include "runner/job_json.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "runner/sides.h"
#include "timing/timer.h"
#include "util/laps.h"
#include "util/log.h"

namespace backendbench::judge {

using Json = nlohmann::ordered_json;

namespace {

// Whether the tensors of `a` and `b` hold the same bits, pair by pair.
bool same_bits(const torch::jit::Stack& a, const torch::jit::Stack& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::vector<at::Tensor> x = check::tensors_of(a[i]), y = check::tensors_of(b[i]);
    if (x.size() != y.size()) return false;
    for (size_t k = 0; k < x.size(); ++k) {
      if (x[k].defined() != y[k].defined()) return false;
      if (x[k].defined() && !check::bitwise_equal(x[k], y[k])) return false;
    }
  }
  return true;
}

}  // namespace

CandidateService::CandidateService(runner::TestExecutor& executor, c10::Device device, std::function<size_t()> end_test,
                                   timing::BaselineStore* baseline, std::vector<std::string>* recorded)
    : executor_(executor),
      device_(device),
      end_test_(std::move(end_test)),
      baseline_(baseline),
      recorded_(recorded),
      from_judge_(SharedRegion::create("backendbench-from-judge")),
      to_judge_(SharedRegion::create("backendbench-to-judge")),
      from_judge_on_device_(device),
      to_judge_on_device_(device) {}

Json CandidateService::answer(const Json& request) {
  const std::string type = request.value("type", "");
  if (type == "load") {
    const std::string op = request.at("op");
    const runner::LoadedKernel* loaded = executor_.loaded(op);
    if (!loaded) return {{"type", "loaded"}, {"unknown", op}};
    Json header = to_json(*loaded);
    header["type"] = "loaded";
    return header;
  }
  if (type == "candidate") {
    unsent_.reset();
    return run(request);
  }
  if (type == "resend") return resend(request);
  if (type == "warm_up") return warm_up(request);
  if (type == "time") return time(request);
  if (type == "end_test") {
    storages_.clear();
    unsent_.reset();
    return {{"type", "ended"}, {"left", end_test_ ? end_test_() : 0}};
  }
  return {{"type", "unknown"}};
}

Json CandidateService::warm_up(const Json& request) {
  const runner::TestJob job = runner::job_from_json(request.at("job"));
  // ATen's work: the judge, which takes its answer later, counts the wait as the reference's.
  const runner::PhaseScope phase(runner::Phase::reference);
  util::Laps laps;
  // What ATen raises here is the test's to find, on the judge's side: nothing is said of it.
  (void)runner::capture([&] {
    const auto prepared = runner::prepare_call(job.input, device_, request.at("seed").get<uint64_t>());
    if (const auto* call = std::get_if<runner::PreparedCall>(&prepared)) (void)call->call_aten();
    timing::synchronize(device_);
  });
  laps.lap("warmed up");
  BB_LOG(debug) << "the kernel's process, " << job.op_name << ": " << laps.str();
  return {{"type", "warmed_up"}};
}

bool CandidateService::context_lost_after(bool failed) const {
  return failed && device_.is_cuda() && runner::capture([&] { timing::synchronize(device_); }).has_value();
}

Json CandidateService::time(const Json& request) {
  const runner::TestJob job = runner::job_from_json(request.at("job"));
  const runner::TestOutcome outcome = executor_.run(job);
  Json dropped = nullptr;
  if (baseline_ && !told_drop_) {
    if (auto reason = baseline_->dropped()) {
      dropped = *reason;
      told_drop_ = true;
    }
  }
  const bool failed = outcome.performance && !outcome.performance->successfully_ran;
  return {{"type", "timed"},
          {"outcome", runner::to_json(outcome)},
          {"context_lost", context_lost_after(failed)},
          {"baseline_dropped", dropped},
          {"recorded", recorded_ ? std::exchange(*recorded_, {}) : std::vector<std::string>{}}};
}

Json CandidateService::run(const Json& h) {
  // Reading the judge's values and writing the answer back; the candidate's calls are its own phase.
  const runner::PhaseScope crossing(runner::Phase::crossing);
  runner::OperatorRun* op = executor_.operator_run(h.at("op").get<std::string>());
  const auto failed = [&](const runner::Failure& f) {
    return Json{{"type", "ran"}, {"failure", to_json(f)}, {"context_lost", context_lost_after(true)}};
  };
  if (!op) return failed(runner::Failure(results::ErrorType::exception, "the kernel's process has no kernel for it"));
  std::vector<c10::TypePtr> types;
  for (const c10::Argument& a : op->op().schema().arguments()) types.push_back(a.type());
  util::Laps laps;
  torch::jit::Stack inputs;
  at::Tensor back;  // the judge's device buffer for the answer
  if (auto f = runner::capture([&] {
        const size_t size = h.at("size").get<size_t>();
        const Json& buffers = h.at("device_buffers");
        at::Tensor in;
        if (!buffers.is_null() && !buffers.at("in").is_null()) in = from_judge_on_device_.bytes(buffers.at("in"));
        if (!buffers.is_null() && !buffers.at("out").is_null()) back = to_judge_on_device_.bytes(buffers.at("out"));
        ParcelReader reader(h.at("storages"), {from_judge_.view(size), size}, storages_, {device_.type(), c10::kCPU},
                            in);
        inputs = reader.stack(h.at("inputs"), types);
      })) {
    return failed(*f);
  }
  const runner::CandidateCall call{.observe = h.at("observe").get<bool>(),
                                   .written = h.at("written").get<std::vector<size_t>>(),
                                   .watched = operators_from_json(h.at("watched"))};
  laps.lap("read");
  // Through host memory, what the candidate only read goes back without its bytes, and the copy made as
  // it returned only where it differs from the results. Through the judge's device buffers bytes are
  // cheaper to copy than to compare: everything goes back.
  const bool through_host = !back.defined();
  std::optional<StorageSnapshot> before;
  if (through_host) before.emplace(inputs);
  // A library's first call with new shapes in a process may do work on streams of its own (cuDNN's set-up)
  // that its later calls do not (in a run without a judge ATen's reference call did it first, in the same
  // process): work off the stream is judged by a second call on the same values.
  std::optional<torch::jit::Stack> again;
  if (device_.is_cuda()) again = runner::copy_inputs(inputs);
  laps.lap("copies");
  auto ran = runner::run_candidate(op->kernel(), inputs, device_, call);
  laps.lap("call");
  if (auto* f = std::get_if<runner::Failure>(&ran)) return failed(*f);
  runner::CandidateRun& r = std::get<runner::CandidateRun>(ran);
  if (again && !r.stray_work.empty()) {
    auto second = runner::run_candidate(op->kernel(), *again, device_, {.written = call.written});
    if (auto* s = std::get_if<runner::CandidateRun>(&second)) {
      r.stray_work = s->stray_work;
      r.gpu_kernels = s->gpu_kernels;
    }
  }
  const bool snapshot_as_results =
      through_host && same_bits(r.snapshot, runner::results_of(r.outputs, r.inputs, call.written));
  laps.lap("compared");
  Parcel parcel;
  bool fits = true;
  if (auto f = runner::capture([&] {
        ParcelWriter writer(storages_, before ? &*before : nullptr);
        writer.add(r.inputs);
        writer.add(r.outputs);
        if (!snapshot_as_results) writer.add(r.snapshot);
        parcel = writer.finish();
        laps.lap("described");
        fits = through_host || parcel.device_size <= static_cast<size_t>(back.numel());
        if (fits) write(parcel, back);
      })) {
    return failed(*f);
  }
  laps.lap("written");
  BB_LOG(debug) << "the kernel's process, " << h.at("op").get<std::string>() << ": " << laps.str() << " ("
                << parcel.device_size << " bytes on the device, " << parcel.host_size(!through_host)
                << " on the host)";
  Json answer = {{"type", "ran"},
                 {"snapshot_as_results", snapshot_as_results},
                 {"values", parcel.values},
                 {"storages", parcel.storages},
                 {"calls", to_json(r.calls)},
                 {"stray_work", r.stray_work},
                 {"gpu_kernels", r.gpu_kernels},
                 {"moved", r.moved},
                 {"replaced", r.replaced},
                 {"size", parcel.host_size(!through_host)},
                 {"device_size", parcel.device_size},
                 {"unsent", !fits}};
  if (!fits) unsent_ = std::move(parcel);
  return answer;
}

void CandidateService::write(const Parcel& parcel, const at::Tensor& device_bytes) {
  parcel.write(to_judge_.reserve(parcel.host_size(device_bytes.defined())), device_bytes);
  if (device_bytes.defined()) timing::synchronize(device_);  // the bytes are there before the judge reads them
}

Json CandidateService::resend(const Json& request) {
  const runner::PhaseScope crossing(runner::Phase::crossing);
  if (!unsent_) return {{"type", "unknown"}};
  const Parcel parcel = std::move(*unsent_);
  unsent_.reset();
  // No buffer: the judge had no room for one on the device; host memory then.
  const at::Tensor back = request.at("out").is_null() ? at::Tensor() : to_judge_on_device_.bytes(request.at("out"));
  if (back.defined() && parcel.device_size > static_cast<size_t>(back.numel())) return {{"type", "unknown"}};
  write(parcel, back);
  return {{"type", "written"}, {"size", parcel.host_size(back.defined())}};
}

}  // namespace backendbench::judge
