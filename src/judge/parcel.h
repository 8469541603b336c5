// Values crossing between the judge (the process that runs ATen's reference
// and compares outputs) and the kernel's process (which runs the candidate):
// a JSON description of a stack and the bytes of its tensors' storages.
//
// Storages keep a number on each side for the length of a test, so that the
// same memory is the same memory on both: the kernel's process writes the
// judge's next values into the buffers it had before (a result cached by
// address stays stale), and the judge learns which of its inputs the
// candidate wrote or gave new memory, and which outputs are views of them.
// The judge numbers storages upwards from 1, the kernel's process downwards
// from -1.
//
// Dense tensors cross as their storage and how they lie in it (a wrapped
// number, a lazy conjugate or negation kept as such); sparse ones as their
// parts. Whatever comes from the kernel's process is untrusted data: a parcel that
// does not describe what it claims (a tensor beyond its storage, a device
// that is neither the run's nor the CPU) raises ParcelError.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>
#include <c10/core/Storage.h>
#include <nlohmann/json.hpp>

namespace backendbench::judge {

struct ParcelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A stack's description (`values`), its storages' numbers and sizes, and
// the storages whose bytes follow, one after another (`size` in all, of
// which `device_size` are on a CUDA device).
struct Parcel {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  nlohmann::ordered_json storages = nlohmann::ordered_json::array();
  std::vector<c10::Storage> contents;
  size_t size = 0;
  size_t device_size = 0;
  // Copies the contents' bytes: those on a CUDA device to `device` (bytes on a device, room for
  // `device_size`) where it is given, the others to `host` (room for the rest), in their order.
  void write(char* host, const at::Tensor& device = {}) const;
  // The bytes that go to host memory.
  size_t host_size(bool device_apart) const { return device_apart ? size - device_size : size; }
};

// One side's storages by number, for the length of a test.
class StorageTable {
 public:
  // `step`: +1 on the judge's side, -1 on the kernel's.
  explicit StorageTable(int64_t step) : step_(step), next_(step) {}
  // The number of `storage`, given a new one if it has none.
  int64_t number_of(const c10::Storage& storage);
  std::optional<c10::Storage> find(int64_t id) const;
  void put(int64_t id, c10::Storage storage);
  void clear();

 private:
  int64_t step_;
  int64_t next_;
  std::map<const c10::StorageImpl*, int64_t> ids_;
  std::map<int64_t, c10::Storage> storages_;
};

// The contents of a stack's storages when taken: a parcel leaves out the
// bytes of those that have not changed since (the inputs a candidate only read).
class StorageSnapshot {
 public:
  explicit StorageSnapshot(const torch::jit::Stack& stack);
  bool unchanged(const c10::Storage& storage) const;

 private:
  std::map<const c10::StorageImpl*, at::Tensor> copies_;
};

// Describes stacks into one parcel; each storage's bytes are written once.
class ParcelWriter {
 public:
  // `kept`: storages unchanged since it was taken cross without their bytes
  // (the other side has them).
  explicit ParcelWriter(StorageTable& table, const StorageSnapshot* kept = nullptr) : table_(table), kept_(kept) {}
  // Appends the description of `stack` as one list of `values`. A tensor of
  // a later stack that is one of the first stack's tensors (an in-place
  // operator's output is its `self`) is described as that one. Raises
  // ParcelError for what cannot cross (a generator, a sparse tensor).
  void add(const torch::jit::Stack& stack);
  Parcel finish() { return std::move(parcel_); }

 private:
  nlohmann::ordered_json describe(const c10::IValue& v);
  StorageTable& table_;
  const StorageSnapshot* kept_;
  Parcel parcel_;
  std::map<int64_t, bool> written_;
  // The first stack's tensors: [position, element of a list or -1].
  std::map<const c10::TensorImpl*, std::pair<int64_t, int64_t>> first_;
};

// Reads a parcel: `storages` (what its header lists) and `bytes` (on the
// host; and `device_bytes` for the storages on a CUDA device, when they
// were written apart, as Parcel::write does). Storages
// the table knows by number get the bytes written into them (or are
// replaced, where their size changed), or keep theirs where the parcel says
// they are unchanged; others are made on their device.
// `devices`: the kinds of device its tensors may live on.
class ParcelReader {
 public:
  ParcelReader(const nlohmann::ordered_json& storages, std::string_view bytes, StorageTable& table,
               std::vector<c10::DeviceType> devices, const at::Tensor& device_bytes = {});
  // A new stack from `values` (a list): tags decide what each value is; `types`, where given (a schema's
  // argument types, one per value), give lists their element types; `first`: the stack a tensor described
  // as one of the first stack's is taken from (the same tensor, not a copy).
  torch::jit::Stack stack(const nlohmann::ordered_json& values, const std::vector<c10::TypePtr>& types = {},
                          const torch::jit::Stack* first = nullptr);
  // Makes the tensors of `stack` what `values` describe (a storage, sizes, strides): the judge's own inputs, as
  // the candidate left them.
  void update(torch::jit::Stack& stack, const nlohmann::ordered_json& values);

 private:
  c10::IValue value(const nlohmann::ordered_json& v, const c10::TypePtr& type, const torch::jit::Stack* first);
  at::Tensor tensor(const nlohmann::ordered_json& t);
  at::Tensor sparse(const nlohmann::ordered_json& t, bool compressed);
  void update(at::Tensor& t, const nlohmann::ordered_json& v);
  c10::Storage storage(int64_t id) const;
  StorageTable& table_;
  std::vector<c10::DeviceType> devices_;
};

}  // namespace backendbench::judge
