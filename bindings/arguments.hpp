// Python arguments to C++ values for the snaptok._core module: texts as
// UTF-8 views (held while the GIL is released), integers checked as HF
// checks them, iterables of texts, pairs and pre-tokenized words, and the
// truncation and padding settings. Errors name the argument and the value.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <snaptok/pipeline.hpp>

#include "id_buffer_pool.hpp"

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// Returns the UTF-8 view of a str (cached by CPython, no copy) or bytes.
inline std::string_view text_of(nb::handle h, const char* what) {
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
    if (!data) throw nb::python_error();
    return {data, static_cast<std::size_t>(size)};
  }
  if (PyBytes_Check(h.ptr())) {
    return {PyBytes_AS_STRING(h.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(h.ptr()))};
  }
  throw nb::type_error((std::string(what) + ": expected str or bytes, got " +
                        nb::type_name(h.type()).c_str())
                           .c_str());
}

// text_of for item `index` of the sequence `what`: its name, "what[index]",
// is made only for the error (a batch of short texts would pay for it).
inline std::string_view text_of(nb::handle h, std::string_view what, std::size_t index) {
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())) return text_of(h, "");
  return text_of(h, (std::string(what) + "[" + std::to_string(index) + "]").c_str());
}

// Returns the Python integer `h` as an unsigned value of at most `max`, or
// raises what HF raises: TypeError for what is not an integer (a float, a
// str), OverflowError for a negative value or one above `max`. Messages name
// `what` and the value, e.g. "ids[2]: -1 is negative (expected 0 ..
// 4294967295)".
inline std::uint64_t int_arg(nb::handle h, const std::string& what, std::uint64_t max) {
  if (PyFloat_Check(h.ptr()) || !PyIndex_Check(h.ptr())) {
    throw nb::type_error((what + ": expected an int, got " + nb::type_name(h.type()).c_str()).c_str());
  }
  const nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  const std::string range = " (expected 0 .. " + std::to_string(max) + ")";
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  auto too = [&](const char* how) {
    PyErr_SetString(PyExc_OverflowError,
                    (what + ": " + nb::repr(index).c_str() + " is " + how + range).c_str());
    throw nb::python_error();
  };
  if (overflow < 0 || (overflow == 0 && v < 0)) too("negative");
  if (overflow > 0 || static_cast<std::uint64_t>(v) > max) too("too large");
  return static_cast<std::uint64_t>(v);
}

constexpr std::uint64_t kMaxId = 0xFFFFFFFFu;
constexpr std::uint64_t kMaxSize = static_cast<std::uint64_t>(PY_SSIZE_T_MAX);

inline std::optional<std::size_t> optional_size_arg(nb::handle h, const std::string& what) {
  if (h.is_none()) return std::nullopt;
  return static_cast<std::size_t>(int_arg(h, what, kMaxSize));
}

inline std::size_t size_arg(nb::handle h, const std::string& what) {
  return static_cast<std::size_t>(int_arg(h, what, kMaxSize));
}

inline unsigned threads_arg(nb::handle h) {
  return static_cast<unsigned>(int_arg(h, "num_threads", 0xFFFFFFFFu));
}

// The token ids of a sequence of ints (a list, a tuple, a NumPy array, ...);
// each bad item is named: "ids[3]: expected an int, got float".
inline std::vector<std::uint32_t> ids_arg(nb::handle seq, const std::string& what) {
  const nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), ""));
  if (!fast.is_valid()) {
    PyErr_Clear();
    throw nb::type_error((what + ": expected a sequence of ints, got " + nb::type_name(seq.type()).c_str()).c_str());
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<std::uint32_t> ids(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (PyLong_CheckExact(item)) {  // the common case, without the checks' cost
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
      if (overflow == 0 && v >= 0 && static_cast<std::uint64_t>(v) <= kMaxId) {
        ids[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(v);
        continue;
      }
    }
    ids[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(
        int_arg(item, what + "[" + std::to_string(i) + "]", kMaxId));
  }
  return ids;
}

// The .st sidecar that from_file's st_cache asks for: none for False, the
// default (the JSON's path + ".st") for True, else the given path.
inline std::optional<std::filesystem::path> st_cache_path(nb::handle st_cache) {
  if (st_cache.is_none() || st_cache.ptr() == Py_False) return std::nullopt;
  if (st_cache.ptr() == Py_True) return std::filesystem::path();
  nb::object path;
  if (PyUnicode_Check(st_cache.ptr()) || nb::hasattr(st_cache, "__fspath__")) {
    path = nb::module_::import_("os").attr("fspath")(st_cache);
  }
  if (!path.is_valid() || !nb::isinstance<nb::str>(path)) {
    throw nb::type_error((std::string("st_cache: expected a bool, str or os.PathLike, got ") +
                          nb::type_name(st_cache.type()).c_str())
                             .c_str());
  }
  return std::filesystem::path(nb::cast<std::string>(path));
}


// A view of the bytes of a str, bytes, or any object with the buffer
// protocol (bytearray, memoryview, mmap, a NumPy uint8 array), held for the
// view's lifetime so the GIL can be released while it is read.
class BytesView {
 public:
  BytesView(nb::handle h, const char* what) {
    if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())) {
      view_ = text_of(h, what);
      return;
    }
    if (PyObject_CheckBuffer(h.ptr()) && PyObject_GetBuffer(h.ptr(), &buffer_, PyBUF_SIMPLE) == 0) {
      held_ = true;
      view_ = {static_cast<const char*>(buffer_.buf), static_cast<std::size_t>(buffer_.len)};
      return;
    }
    PyErr_Clear();
    throw nb::type_error((std::string(what) + ": expected str, bytes or a bytes-like object, got " +
                          nb::type_name(h.type()).c_str())
                             .c_str());
  }
  BytesView(const BytesView&) = delete;
  BytesView& operator=(const BytesView&) = delete;
  ~BytesView() {
    if (held_) PyBuffer_Release(&buffer_);
  }
  std::string_view get() const noexcept { return view_; }

 private:
  Py_buffer buffer_{};
  bool held_ = false;
  std::string_view view_;
};


// Returns the items of any iterable but a str or bytes (a list, a tuple, a
// generator, a NumPy array of str, ...) as a list or tuple, for the batch
// calls; `what` names the argument in the TypeError.
inline nb::sequence items_of(nb::handle iterable, const std::string& what) {
  if (PyUnicode_Check(iterable.ptr()) || PyBytes_Check(iterable.ptr())) {
    throw nb::type_error((what + ": expected an iterable of texts, got one " +
                          nb::type_name(iterable.type()).c_str() + " (wrap it in a list)")
                             .c_str());
  }
  nb::object fast = nb::steal(PySequence_Fast(iterable.ptr(), ""));
  if (!fast.is_valid()) {
    PyErr_Clear();
    throw nb::type_error((what + ": expected an iterable, got " + nb::type_name(iterable.type()).c_str()).c_str());
  }
  return nb::borrow<nb::sequence>(fast);
}

// Returns the code points of str `h` when encode_to_numpy should read it
// part by part rather than through CPython's UTF-8 copy: a str that is not
// ASCII (an ASCII str's UTF-8 is its own storage) and long enough to be cut
// into parts (runtime::kShortestCutText). CPython makes that copy serially, before
// the threads start, and keeps it with the str for its lifetime (one 64 MB
// text: 64 MB more, for good); each part is instead converted by the thread
// that encodes it. Empty otherwise.
inline snaptok::detail::CodePoints long_str_chars(nb::handle h) {
  PyObject* o = h.ptr();
  if (!PyUnicode_Check(o)) return {};
#if PY_VERSION_HEX < 0x030C0000
  if (PyUnicode_READY(o) != 0) throw nb::python_error();
#endif
  if (PyUnicode_IS_ASCII(o) || static_cast<std::size_t>(PyUnicode_GET_LENGTH(o)) < snaptok::runtime::kShortestCutText) {
    return {};
  }
  return {PyUnicode_DATA(o), static_cast<std::size_t>(PyUnicode_GET_LENGTH(o)),
          static_cast<unsigned>(PyUnicode_KIND(o))};
}

// Holds references to the texts of an iterable and their UTF-8 views, so the
// GIL can be released while they are read. With `long_strs_as_chars`,
// long_str_chars texts are held as code points in `chars` (then one entry
// per text, empty for the others) with an empty view.
struct TextBatch {
  std::vector<nb::object> keep;
  std::vector<std::string_view> views;
  std::vector<snaptok::detail::CodePoints> chars;
  bool all_str = true;  // every view is a str's UTF-8 (valid: CPython checks it)

  explicit TextBatch(nb::handle iterable, bool long_strs_as_chars = false) {
    nb::sequence s = items_of(iterable, "texts");
    const std::size_t n = nb::len(s);
    keep.reserve(n + 1);
    views.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      nb::object item = s[i];
      all_str = all_str && PyUnicode_Check(item.ptr());
      if (const snaptok::detail::CodePoints c = long_strs_as_chars ? long_str_chars(item) : snaptok::detail::CodePoints{}) {
        chars.resize(n);
        chars[i] = c;
        views.emplace_back();
      } else {
        views.push_back(text_of(item, "texts", i));
      }
      keep.push_back(std::move(item));
    }
    keep.push_back(std::move(s));
  }

  // The texts' UTF-8 bytes (a text held as code points counts one a char).
  std::size_t bytes() const noexcept {
    std::size_t n = 0;
    for (const std::string_view v : views) n += v.size();
    for (const snaptok::detail::CodePoints& c : chars) n += c.size;
    return n;
  }

  // Raises CPython's own error (UnicodeEncodeError) for the text `e`
  // names, as a text read through its UTF-8 copy raises it; rethrows `e`
  // when that text converts after all.
  [[noreturn]] void raise_for(const snaptok::detail::UnencodableChar& e) const {
    for (std::size_t i = 0; i < chars.size(); ++i) {
      if (chars[i] && e.subject() == snaptok::runtime::item_name("texts[", i) &&
          !PyUnicode_AsUTF8AndSize(keep[i].ptr(), nullptr)) {
        throw nb::python_error();
      }
    }
    throw e;
  }
};

// Encodes `texts` (any iterable of str or bytes) into ids and offsets
// (Pipeline::encode_batch_flat), the GIL released; a str UTF-8 cannot
// encode raises CPython's own error, as its UTF-8 copy would.
inline void encode_texts_flat(const snaptok::Pipeline& t, nb::handle texts, bool add_special_tokens,
                              unsigned num_threads, std::vector<std::uint32_t>& ids,
                              std::vector<std::int64_t>& offsets) {
  TextBatch batch(texts, /*long_strs_as_chars=*/true);
  if (ids.capacity() == 0) ids = IdBufferPool::instance().take(snaptok::runtime::ids_room_for(batch.bytes()));
  try {
    nb::gil_scoped_release release;
    t.encode_batch_flat(batch.views, batch.chars, add_special_tokens, num_threads, ids, offsets,
                        /*utf8_checked=*/batch.all_str);
  } catch (const snaptok::detail::UnencodableChar& e) {
    batch.raise_for(e);
  }
}

// One pre-tokenized sequence (HF is_pretokenized): a list or tuple of words,
// each a str or bytes, kept alive with their views.
struct WordList {
  nb::object keep;
  std::vector<std::string_view> words;

  WordList(nb::handle seq, const std::string& what) {
    if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) {
      throw nb::type_error((what + ": expected a list or tuple of words (is_pretokenized), got " +
                            nb::type_name(seq.type()).c_str())
                               .c_str());
    }
    keep = nb::borrow(seq);
    const std::size_t n = nb::len(keep);
    words.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      words.push_back(text_of(keep[i], what, i));
    }
  }
};

// Holds the inputs of encode_batch: each item a text (str or bytes) or a
// pair given as a 2-tuple or 2-list, as HF's TextEncodeInput.
struct PairBatch {
  std::vector<nb::object> keep;
  std::vector<std::string_view> texts;
  std::vector<std::optional<std::string_view>> pairs;
  bool any_pair = false;

  explicit PairBatch(nb::handle iterable) {
    nb::sequence s = items_of(iterable, "input");
    keep.push_back(s);
    const std::size_t n = nb::len(s);
    keep.reserve(n);
    texts.reserve(n);
    pairs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      nb::object item = s[i];
      if (PyUnicode_Check(item.ptr()) || PyBytes_Check(item.ptr())) {
        texts.push_back(text_of(item, ""));
        pairs.emplace_back();
        keep.push_back(std::move(item));
        continue;
      }
      const std::string where = "input[" + std::to_string(i) + "]";
      if ((PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) && nb::len(item) == 2) {
        nb::object a = item[0], b = item[1];
        texts.push_back(text_of(a, (where + "[0]").c_str()));
        pairs.emplace_back(text_of(b, (where + "[1]").c_str()));
        any_pair = true;
        keep.push_back(std::move(a));
        keep.push_back(std::move(b));
      } else {
        throw nb::type_error((where + ": expected str, bytes or a (text, pair) tuple, got " +
                              nb::type_name(item.type()).c_str())
                                 .c_str());
      }
      keep.push_back(std::move(item));
    }
  }
};


inline snaptok::TruncationStrategy strategy_of(std::string_view s) {
  if (s == "longest_first") return snaptok::TruncationStrategy::longest_first;
  if (s == "only_first") return snaptok::TruncationStrategy::only_first;
  if (s == "only_second") return snaptok::TruncationStrategy::only_second;
  throw nb::value_error(("Unknown `strategy`: `" + std::string(s) +
                         "`. Use one of `longest_first`, `only_first`, or `only_second`")
                            .c_str());
}

inline bool is_left(std::string_view s) {
  if (s == "left") return true;
  if (s == "right") return false;
  throw nb::value_error(
      ("Unknown `direction`: `" + std::string(s) + "`. Use one of `left` or `right`").c_str());
}

}  // namespace snaptok_python
