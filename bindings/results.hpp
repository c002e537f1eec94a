// C++ results to Python for the snaptok._core module: ids as lists (with
// the small ints kept) or zero-copy NumPy arrays, offsets, the tokenizer's
// JSON and .st bytes, and when a call is long enough to release the GIL.
#pragma once

#include "arguments.hpp"
#include "id_buffer_pool.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// The tokenizer.json of `t` (to_str, save): minified, or indented by two
// spaces as HF's pretty output is.
inline std::string tokenizer_json(const snaptok::Pipeline& t, bool pretty) {
  std::string text = t.to_json();
  if (!pretty) return text;
  const nb::module_ json = nb::module_::import_("json");
  return nb::cast<std::string>(json.attr("dumps")(json.attr("loads")(nb::str(text.data(), text.size())),
                                                  "indent"_a = 2, "ensure_ascii"_a = false));
}

// The .st image of `t` as Python bytes (to_st_bytes, and what pickling keeps).
inline nb::bytes st_bytes_of(const snaptok::Pipeline& t) {
  const std::string image = t.to_st_bytes();
  return nb::bytes(image.data(), image.size());
}


// Releases the GIL for its lifetime when the work is long enough to be worth
// it: for a short text, releasing and taking the GIL back costs more than
// the encode itself, and no other thread would get far in that time.
class GilReleaseFor {
 public:
  static constexpr std::size_t kMinBytes = 4096;
  explicit GilReleaseFor(std::size_t bytes) {
    if (bytes >= kMinBytes) release_.emplace();
  }

 private:
  std::optional<nb::gil_scoped_release> release_;
};

// This thread's reused id buffer for one call that returns a list: the ids
// are encoded into it (no allocation once it has room) and then copied into
// the list; a buffer grown past kKeepIds ids is freed after the call.
class IdsBuffer {
 public:
  static constexpr std::size_t kKeepIds = std::size_t{1} << 16;
  IdsBuffer() { ids().clear(); }
  ~IdsBuffer() {
    if (ids().capacity() > kKeepIds) std::vector<std::uint32_t>().swap(ids());
  }
  IdsBuffer(const IdsBuffer&) = delete;
  IdsBuffer& operator=(const IdsBuffer&) = delete;

  std::vector<std::uint32_t>& get() { return ids(); }

  // Returns the ids as a list of Python ints (the GIL held).
  nb::list to_list() {
    const std::vector<std::uint32_t>& v = ids();
    nb::list out = nb::steal<nb::list>(PyList_New(static_cast<Py_ssize_t>(v.size())));
    if (!out.is_valid()) throw nb::python_error();
    for (std::size_t i = 0; i < v.size(); ++i) {
      PyObject* id = id_object(v[i]);
      if (id == nullptr) throw nb::python_error();
      PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), id);
    }
    return out;
  }

 private:
  // Returns a new reference to the Python int `id`. Ids below 2^20 (every
  // vocabulary's) are created once and kept, as CPython keeps the small
  // ints: a list of 32 ids then costs 32 reference counts instead of 32
  // allocations (about half of a short call's time). The table of kept
  // ints grows by 4096 ids as ids appear; at most 2^20 ints are kept, in
  // practice the few thousand a text uses. Only touched with the GIL held.
  static PyObject* id_object(std::uint32_t id) {
    constexpr std::uint32_t kChunk = 4096;
    constexpr std::uint32_t kChunks = 256;
    // Never freed (no static destructor runs after the interpreter ends).
    static PyObject** chunks[kChunks] = {};
    if (id >= kChunk * kChunks) return PyLong_FromUnsignedLong(id);
    PyObject**& chunk = chunks[id / kChunk];
    if (chunk == nullptr) chunk = new PyObject*[kChunk]();
    PyObject*& kept = chunk[id % kChunk];
    if (kept == nullptr) {
      kept = PyLong_FromUnsignedLong(id);
      if (kept == nullptr) return nullptr;
    }
    Py_INCREF(kept);
    return kept;
  }

  static std::vector<std::uint32_t>& ids() {
    thread_local std::vector<std::uint32_t> buffer;
    return buffer;
  }
};


// A NumPy array that owns `data` (an id array's buffer goes back to
// IdBufferPool when NumPy drops it).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T>&& data) {
  auto* owned = new std::vector<T>(std::move(data));
  nb::capsule owner(owned, [](void* p) noexcept {
    auto* v = static_cast<std::vector<T>*>(p);
    if constexpr (std::is_same_v<T, std::uint32_t>) IdBufferPool::instance().give_back(std::move(*v));
    delete v;
  });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

// [(start, end), ...] for Encoding.offsets. Built with CPython's calls
// (a list of its final size, tuples filled in place): nb::make_tuple and
// list.append cost ~4x as much per offset, most of a full encode.
inline nb::list offsets_list(const std::vector<snaptok::Offsets>& offsets) {
  nb::list out = nb::steal<nb::list>(PyList_New(static_cast<Py_ssize_t>(offsets.size())));
  if (!out.is_valid()) throw nb::python_error();
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    // (An empty slot of a list or tuple is NULL, which their deallocation
    // skips: an error midway frees what was built.)
    PyObject* pair = PyTuple_New(2);
    if (!pair) throw nb::python_error();
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), pair);
    for (Py_ssize_t k = 0; k < 2; ++k) {
      PyObject* n = PyLong_FromSize_t(k == 0 ? offsets[i].start : offsets[i].end);
      if (!n) throw nb::python_error();
      PyTuple_SET_ITEM(pair, k, n);
    }
  }
  return out;
}

}  // namespace snaptok_python
