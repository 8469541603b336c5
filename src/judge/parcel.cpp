#include "judge/parcel.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include <ATen/ATen.h>
#include <ATen/SparseCsrTensorUtils.h>
#include <ATen/core/List.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

namespace backendbench::judge {
namespace {

using Json = nlohmann::ordered_json;

// A byte view of the whole storage, on its device.
at::Tensor bytes_of(const c10::Storage& storage) {
  return at::empty({0}, at::TensorOptions().dtype(at::kByte).device(storage.device()))
      .set_(storage, 0, {static_cast<int64_t>(storage.nbytes())}, {1});
}

void read_bytes(const c10::Storage& storage, char* out) {
  const size_t n = storage.nbytes();
  if (n == 0 || storage.device().is_meta()) return;
  if (storage.device().is_cpu()) {
    std::memcpy(out, storage.data(), n);
  } else {
    at::from_blob(out, {static_cast<int64_t>(n)}, at::kByte).copy_(bytes_of(storage));
  }
}

void write_bytes(const c10::Storage& storage, const char* data, size_t n) {
  if (n == 0 || storage.device().is_meta()) return;
  if (storage.device().is_cpu()) {
    std::memcpy(storage.mutable_data(), data, n);
  } else {
    bytes_of(storage).copy_(at::from_blob(const_cast<char*>(data), {static_cast<int64_t>(n)}, at::kByte));
  }
}

int64_t integer(const Json& j, const char* what) {
  if (!j.is_number_integer()) throw ParcelError(std::string("a parcel's ") + what + " is not an integer");
  return j.get<int64_t>();
}

const Json& field(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw ParcelError(std::string("a parcel's entry lacks its ") + key);
  return j.at(key);
}

c10::Device device_named(const Json& j) {
  if (!j.is_string()) throw ParcelError("a parcel names a device that is not text");
  try {
    return c10::Device(j.get<std::string>());
  } catch (const c10::Error&) {
    throw ParcelError("a parcel names no device: " + j.get<std::string>());
  }
}

std::vector<int64_t> dims(const Json& j, const char* what) {
  if (!j.is_array() || j.size() > 64) throw ParcelError(std::string("a tensor's ") + what + " are not a short list");
  std::vector<int64_t> out;
  for (const Json& d : j) {
    const int64_t v = integer(d, what);
    if (v < 0 || v > (int64_t{1} << 48)) throw ParcelError(std::string("a tensor's ") + what + " are out of range");
    out.push_back(v);
  }
  return out;
}

// What describes a tensor: its storage and how it lies in it.
struct TensorFields {
  int64_t storage = 0;
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  bool requires_grad = false;
};

TensorFields fields_of(const Json& t) {
  TensorFields f;
  f.storage = integer(field(t, "st"), "storage");
  const int64_t dt = integer(field(t, "dt"), "dtype");
  if (dt < 0 || dt >= static_cast<int64_t>(c10::ScalarType::NumOptions) ||
      c10::elementSize(static_cast<c10::ScalarType>(dt)) == 0) {
    throw ParcelError("a tensor's dtype is unknown");
  }
  f.dtype = static_cast<c10::ScalarType>(dt);
  f.sizes = dims(field(t, "sz"), "sizes");
  f.strides = dims(field(t, "sr"), "strides");
  if (f.sizes.size() != f.strides.size()) throw ParcelError("a tensor's sizes and strides differ in number");
  f.offset = integer(field(t, "of"), "offset");
  if (f.offset < 0 || f.offset > (int64_t{1} << 48)) throw ParcelError("a tensor's offset is out of range");
  f.requires_grad = t.value("rg", false);
  return f;
}

// The tensor lies within its storage.
void check_bounds(const TensorFields& f, const c10::Storage& storage) {
  int64_t last = f.offset;
  for (size_t d = 0; d < f.sizes.size(); ++d) {
    if (f.sizes[d] == 0) return;  // no elements: nothing to read
    int64_t span = 0;
    if (__builtin_mul_overflow(f.sizes[d] - 1, f.strides[d], &span) || __builtin_add_overflow(last, span, &last)) {
      throw ParcelError("a tensor reaches beyond any storage");
    }
  }
  int64_t end = 0;
  if (__builtin_mul_overflow(last + 1, static_cast<int64_t>(c10::elementSize(f.dtype)), &end) ||
      end > static_cast<int64_t>(storage.nbytes())) {
    throw ParcelError("a tensor reaches beyond its storage");
  }
}

// Lists of symbolic sizes cross as lists of integers.
c10::TypePtr concrete(const c10::TypePtr& type) {
  if (!type) return type;
  switch (type->kind()) {
    case c10::TypeKind::SymIntType: return c10::IntType::get();
    case c10::TypeKind::SymFloatType: return c10::FloatType::get();
    case c10::TypeKind::SymBoolType: return c10::BoolType::get();
    default: return type;
  }
}

// A list's element type: the schema's, or else what its items are.
c10::TypePtr element_type(const Json& items, const c10::TypePtr& type) {
  c10::TypePtr t = type;
  if (t && t->kind() == c10::TypeKind::OptionalType) t = t->expectRef<c10::OptionalType>().getElementType();
  if (t && t->kind() == c10::TypeKind::ListType) return concrete(t->expectRef<c10::ListType>().getElementType());
  const auto all = [&](const char* tag) {
    return !items.empty() && std::all_of(items.begin(), items.end(), [&](const Json& i) { return i.is_object() && i.contains(tag); });
  };
  if (all("t")) return c10::TensorType::get();
  if (all("i")) return c10::IntType::get();
  if (all("f")) return c10::FloatType::get();
  if (all("b")) return c10::BoolType::get();
  return c10::AnyType::get();
}

}  // namespace

StorageSnapshot::StorageSnapshot(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> tensors;
  for (const c10::IValue& v : stack) {
    if (v.isTensor()) tensors.push_back(v.toTensor());
    if (v.isList()) {
      for (const c10::IValue& item : v.toListRef()) {
        if (item.isTensor()) tensors.push_back(item.toTensor());
      }
    }
  }
  for (const at::Tensor& t : tensors) {
    if (!t.defined() || !t.has_storage() || t.device().is_meta()) continue;
    const c10::Storage& storage = t.storage();
    if (!copies_.contains(storage.unsafeGetStorageImpl())) {
      copies_.emplace(storage.unsafeGetStorageImpl(), bytes_of(storage).clone());
    }
  }
}

bool StorageSnapshot::unchanged(const c10::Storage& storage) const {
  const auto it = copies_.find(storage.unsafeGetStorageImpl());
  if (it == copies_.end() || static_cast<size_t>(it->second.numel()) != storage.nbytes()) return false;
  if (storage.device().is_cpu()) return std::memcmp(storage.data(), it->second.const_data_ptr(), storage.nbytes()) == 0;
  return at::equal(bytes_of(storage), it->second);
}

void Parcel::write(char* host, const at::Tensor& device) const {
  int64_t on_device = 0;
  for (const c10::Storage& storage : contents) {
    const auto n = static_cast<int64_t>(storage.nbytes());
    if (storage.device().is_meta()) continue;
    if (storage.device().is_cuda() && device.defined()) {
      device.narrow(0, on_device, n).copy_(bytes_of(storage));
      on_device += n;
    } else {
      read_bytes(storage, host);
      host += n;
    }
  }
}

int64_t StorageTable::number_of(const c10::Storage& storage) {
  if (auto it = ids_.find(storage.unsafeGetStorageImpl()); it != ids_.end()) return it->second;
  const int64_t id = next_;
  next_ += step_;
  put(id, storage);
  return id;
}

std::optional<c10::Storage> StorageTable::find(int64_t id) const {
  if (auto it = storages_.find(id); it != storages_.end()) return it->second;
  return std::nullopt;
}

void StorageTable::put(int64_t id, c10::Storage storage) {
  if (auto it = storages_.find(id); it != storages_.end()) ids_.erase(it->second.unsafeGetStorageImpl());
  ids_[storage.unsafeGetStorageImpl()] = id;
  storages_[id] = std::move(storage);
}

void StorageTable::clear() {
  ids_.clear();
  storages_.clear();
  next_ = step_;
}

void ParcelWriter::add(const torch::jit::Stack& stack) {
  Json values = Json::array();
  for (const c10::IValue& v : stack) values.push_back(describe(v));
  if (parcel_.values.empty()) {
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i].isTensor() && stack[i].toTensor().defined()) {
        first_.emplace(stack[i].toTensor().unsafeGetTensorImpl(), std::pair<int64_t, int64_t>(i, -1));
      } else if (stack[i].isList()) {
        const auto items = stack[i].toListRef();
        for (size_t k = 0; k < items.size(); ++k) {
          if (items[k].isTensor() && items[k].toTensor().defined()) {
            first_.emplace(items[k].toTensor().unsafeGetTensorImpl(), std::pair<int64_t, int64_t>(i, k));
          }
        }
      }
    }
  }
  parcel_.values.push_back(std::move(values));
}

Json ParcelWriter::describe(const c10::IValue& v) {
  if (v.isNone()) return nullptr;
  if (v.isBool()) return Json{{"b", v.toBool()}};
  if (v.isInt()) return Json{{"i", v.toInt()}};
  if (v.isDouble()) return Json{{"f", std::bit_cast<uint64_t>(v.toDouble())}};
  if (v.isComplexDouble()) {
    const c10::complex<double> z = v.toComplexDouble();
    return Json{{"z", {std::bit_cast<uint64_t>(z.real()), std::bit_cast<uint64_t>(z.imag())}}};
  }
  if (v.isString()) return Json{{"s", v.toStringRef()}};
  if (v.isDevice()) return Json{{"d", v.toDevice().str()}};
  if (v.isList()) {
    Json items = Json::array();
    for (const c10::IValue& item : v.toListRef()) items.push_back(describe(item));
    return Json{{"l", std::move(items)}};
  }
  if (v.isTuple()) {
    Json items = Json::array();
    for (const c10::IValue& item : v.toTupleRef().elements()) items.push_back(describe(item));
    return Json{{"tu", std::move(items)}};
  }
  if (!v.isTensor()) throw ParcelError(std::string("a value of kind ") + v.tagKind() + " cannot be passed between processes");
  const at::Tensor& t = v.toTensor();
  if (!t.defined()) return Json{{"u", true}};
  if (auto it = first_.find(t.unsafeGetTensorImpl()); it != first_.end()) {
    return Json{{"same", {it->second.first, it->second.second}}};
  }
  if (t.layout() == at::kSparse) {
    return Json{{"coo",
                 {{"sz", t.sizes()},
                  {"sd", t.sparse_dim()},
                  {"dd", t.dense_dim()},
                  {"co", t.is_coalesced()},
                  {"i", describe(t._indices())},
                  {"v", describe(t._values())}}}};
  }
  if (at::sparse_csr::is_sparse_compressed(t)) {
    const bool by_rows = t.layout() == at::kSparseCsr || t.layout() == at::kSparseBsr;
    return Json{{"cmp",
                 {{"ly", static_cast<int64_t>(t.layout())},
                  {"sz", t.sizes()},
                  {"ci", describe(by_rows ? t.crow_indices() : t.ccol_indices())},
                  {"pi", describe(by_rows ? t.col_indices() : t.row_indices())},
                  {"v", describe(t.values())}}}};
  }
  if (t.layout() != at::kStrided || t.is_quantized() || !t.has_storage()) {
    throw ParcelError("a " + std::string(c10::toString(t.layout())) + (t.is_quantized() ? " quantized" : "") +
                      " tensor cannot be passed between processes");
  }
  const c10::Storage& storage = t.storage();
  const int64_t id = table_.number_of(storage);
  if (!written_[id]) {
    written_[id] = true;
    Json entry{{"id", id}, {"nbytes", storage.nbytes()}, {"dev", storage.device().str()}};
    if (kept_ && kept_->unchanged(storage)) {
      entry["kept"] = true;
    } else {
      parcel_.contents.push_back(storage);
      const size_t n = storage.device().is_meta() ? 0 : storage.nbytes();
      parcel_.size += n;
      if (storage.device().is_cuda()) parcel_.device_size += n;
    }
    parcel_.storages.push_back(std::move(entry));
  }
  return Json{{"t",
               {{"st", id},
                {"dt", static_cast<int64_t>(t.scalar_type())},
                {"sz", t.sizes()},
                {"sr", t.strides()},
                {"of", t.storage_offset()},
                {"rg", t.requires_grad()},
                {"wn", t.unsafeGetTensorImpl()->is_wrapped_number()},
                {"cj", t.is_conj()},
                {"ng", t.is_neg()}}}};
}

ParcelReader::ParcelReader(const Json& storages, std::string_view bytes, StorageTable& table,
                           std::vector<c10::DeviceType> devices, const at::Tensor& device_bytes)
    : table_(table), devices_(std::move(devices)) {
  if (!storages.is_array()) throw ParcelError("a parcel's storages are not a list");
  size_t at = 0, on_device = 0;
  const size_t device_room = device_bytes.defined() ? static_cast<size_t>(device_bytes.numel()) : 0;
  for (const Json& s : storages) {
    const int64_t id = integer(field(s, "id"), "storage number");
    const int64_t nbytes = integer(field(s, "nbytes"), "storage size");
    const c10::Device device = device_named(field(s, "dev"));
    if (std::find(devices_.begin(), devices_.end(), device.type()) == devices_.end()) {
      throw ParcelError("a parcel holds memory on " + device.str() + ", where the run has none");
    }
    const auto known = table_.find(id);
    if (s.value("kept", false)) {
      if (!known || known->nbytes() != static_cast<size_t>(nbytes) || known->device() != device) {
        throw ParcelError("a parcel keeps a storage the other side does not have");
      }
      continue;
    }
    const size_t span = device.is_meta() ? 0 : static_cast<size_t>(nbytes);  // meta tensors have no bytes
    const bool apart = device.is_cuda() && device_bytes.defined();
    if (nbytes < 0 || (apart ? span > device_room - on_device : span > bytes.size() - at)) {
      throw ParcelError("a parcel's storage is larger than the bytes it came with");
    }
    c10::Storage storage = known && known->nbytes() == static_cast<size_t>(nbytes) && known->device() == device
                               ? *known
                               : at::empty({nbytes}, at::TensorOptions().dtype(at::kByte).device(device)).storage();
    if (apart) {
      if (span > 0) bytes_of(storage).copy_(device_bytes.narrow(0, static_cast<int64_t>(on_device), nbytes));
      on_device += span;
    } else {
      write_bytes(storage, bytes.data() + at, span);
      at += span;
    }
    table_.put(id, std::move(storage));
  }
}

c10::Storage ParcelReader::storage(int64_t id) const {
  auto s = table_.find(id);
  if (!s) throw ParcelError("a tensor names a storage the parcel does not hold");
  return *s;
}

at::Tensor ParcelReader::tensor(const Json& t) {
  const TensorFields f = fields_of(t);
  const c10::Storage s = storage(f.storage);
  check_bounds(f, s);
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(f.dtype).device(s.device())).set_(s, f.offset, f.sizes, f.strides);
  if (t.value("wn", false)) {
    if (!f.sizes.empty()) throw ParcelError("a wrapped number that is not a scalar");
    out.unsafeGetTensorImpl()->set_wrapped_number(true);
  }
  if (t.value("ng", false)) out = at::_neg_view(out);
  if (t.value("cj", false)) out = at::_conj(out);
  if (f.requires_grad && (at::isFloatingType(f.dtype) || at::isComplexType(f.dtype))) out.requires_grad_(true);
  return out;
}

// A sparse tensor from its parts; ATen checks that they fit together.
at::Tensor ParcelReader::sparse(const Json& t, bool compressed) {
  const auto part = [&](const char* key) {
    const c10::IValue v = value(field(t, key), nullptr, nullptr);
    if (!v.isTensor() || !v.toTensor().defined()) throw ParcelError("a sparse tensor's part is not a tensor");
    return v.toTensor();
  };
  const std::vector<int64_t> sizes = dims(field(t, "sz"), "sizes");
  try {
    if (!compressed) {
      const at::Tensor values = part("v");
      return at::_sparse_coo_tensor_with_dims_and_tensors(
          integer(field(t, "sd"), "sparse dims"), integer(field(t, "dd"), "dense dims"), sizes, part("i"), values,
          values.options().layout(at::kSparse), t.value("co", false));
    }
    const int64_t layout = integer(field(t, "ly"), "layout");
    if (layout != static_cast<int64_t>(at::kSparseCsr) && layout != static_cast<int64_t>(at::kSparseCsc) &&
        layout != static_cast<int64_t>(at::kSparseBsr) && layout != static_cast<int64_t>(at::kSparseBsc)) {
      throw ParcelError("a compressed sparse tensor of no compressed layout");
    }
    const at::Tensor values = part("v");
    return at::sparse_compressed_tensor(part("ci"), part("pi"), values, sizes,
                                        values.options().layout(static_cast<c10::Layout>(layout)));
  } catch (const c10::Error& e) {
    throw ParcelError(std::string("a sparse tensor whose parts do not fit: ") + e.what_without_backtrace());
  }
}

c10::IValue ParcelReader::value(const Json& v, const c10::TypePtr& type, const torch::jit::Stack* first) {
  if (v.is_null()) return c10::IValue();
  if (!v.is_object() || v.size() != 1) throw ParcelError("a parcel's value is not tagged");
  const std::string& tag = v.begin().key();
  const Json& x = v.begin().value();
  if (tag == "b" && x.is_boolean()) return x.get<bool>();
  if (tag == "i") return integer(x, "integer");
  if (tag == "f") return std::bit_cast<double>(static_cast<uint64_t>(integer(x, "float")));
  if (tag == "z" && x.is_array() && x.size() == 2) {
    return c10::complex<double>(std::bit_cast<double>(static_cast<uint64_t>(integer(x[0], "complex"))),
                                std::bit_cast<double>(static_cast<uint64_t>(integer(x[1], "complex"))));
  }
  if (tag == "s" && x.is_string()) return x.get<std::string>();
  if (tag == "d") return device_named(x);
  if (tag == "u") return at::Tensor();
  if (tag == "t") return tensor(x);
  if (tag == "coo" || tag == "cmp") return sparse(x, tag == "cmp");
  if (tag == "same" && x.is_array() && x.size() == 2 && first) {
    const int64_t i = integer(x[0], "position"), k = integer(x[1], "element");
    if (i >= 0 && static_cast<size_t>(i) < first->size()) {
      const c10::IValue& item = (*first)[static_cast<size_t>(i)];
      if (k < 0 && item.isTensor()) return item;
      if (k >= 0 && item.isList() && static_cast<size_t>(k) < item.toListRef().size() &&
          item.toListRef()[static_cast<size_t>(k)].isTensor()) {
        return item.toListRef()[static_cast<size_t>(k)];
      }
    }
    throw ParcelError("a tensor is said to be an input's that is not there");
  }
  if (tag == "l" && x.is_array()) {
    const c10::TypePtr element = element_type(x, type);
    c10::impl::GenericList list(element);
    for (const Json& item : x) list.push_back(value(item, element, first));
    return list;
  }
  if (tag == "tu" && x.is_array()) {
    std::vector<c10::IValue> items;
    const auto* tuple = type && type->kind() == c10::TypeKind::TupleType ? &type->expectRef<c10::TupleType>() : nullptr;
    for (size_t i = 0; i < x.size(); ++i) {
      items.push_back(value(x[i], tuple && i < tuple->elements().size() ? tuple->elements()[i] : nullptr, first));
    }
    return c10::ivalue::Tuple::create(std::move(items));
  }
  throw ParcelError("a parcel's value has an unknown tag: " + tag);
}

torch::jit::Stack ParcelReader::stack(const Json& values, const std::vector<c10::TypePtr>& types,
                                      const torch::jit::Stack* first) {
  if (!values.is_array()) throw ParcelError("a parcel's stack is not a list");
  torch::jit::Stack out;
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back(value(values[i], i < types.size() ? types[i] : nullptr, first));
  }
  return out;
}

void ParcelReader::update(at::Tensor& t, const Json& v) {
  if (!v.is_object() || !v.contains("t")) throw ParcelError("an input tensor came back as something else");
  const TensorFields f = fields_of(v.at("t"));
  if (f.dtype != t.scalar_type()) throw ParcelError("an input tensor came back with another dtype");
  const c10::Storage s = storage(f.storage);
  check_bounds(f, s);
  if (t.storage().unsafeGetStorageImpl() == s.unsafeGetStorageImpl() && t.storage_offset() == f.offset &&
      t.sizes() == c10::IntArrayRef(f.sizes) && t.strides() == c10::IntArrayRef(f.strides)) {
    return;
  }
  // Below autograd: the judge's own inputs may be leaves that require grad.
  const c10::impl::ExcludeDispatchKeyGuard below_autograd(c10::autograd_dispatch_keyset_with_ADInplaceOrView);
  t.set_(s, f.offset, f.sizes, f.strides);
}

void ParcelReader::update(torch::jit::Stack& stack, const Json& values) {
  if (!values.is_array() || values.size() != stack.size()) throw ParcelError("the inputs came back in another number");
  for (size_t i = 0; i < stack.size(); ++i) {
    c10::IValue& item = stack[i];
    if (item.isTensor()) {
      at::Tensor t = item.toTensor();
      if (t.defined()) update(t, values[i]);
    } else if (item.isList()) {
      const Json& items = values[i].is_object() && values[i].contains("l") ? values[i].at("l") : Json();
      const auto list = item.toListRef();
      if (!items.is_array() || items.size() != list.size()) throw ParcelError("an input list came back changed");
      for (size_t k = 0; k < list.size(); ++k) {
        if (!list[k].isTensor()) continue;
        at::Tensor t = list[k].toTensor();
        if (t.defined()) update(t, items[k]);
      }
    }
  }
}

}  // namespace backendbench::judge
