// snaptok._core: the nanobind module behind the `snaptok` Python package.
// A thin layer: argument conversion, GIL release around encoding, zero-copy
// NumPy output. All behaviour lives in the C++ headers.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <snaptok/simd/dispatch.hpp>
#include <snaptok/pipeline.hpp>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Returns the UTF-8 view of a str (cached by CPython, no copy) or bytes.
std::string_view text_of(nb::handle h, const char* what) {
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
std::string_view text_of(nb::handle h, std::string_view what, std::size_t index) {
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())) return text_of(h, "");
  return text_of(h, (std::string(what) + "[" + std::to_string(index) + "]").c_str());
}

// Returns the Python integer `h` as an unsigned value of at most `max`, or
// raises what HF raises: TypeError for what is not an integer (a float, a
// str), OverflowError for a negative value or one above `max`. Messages name
// `what` and the value, e.g. "ids[2]: -1 is negative (expected 0 ..
// 4294967295)".
std::uint64_t int_arg(nb::handle h, const std::string& what, std::uint64_t max) {
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

std::optional<std::size_t> optional_size_arg(nb::handle h, const std::string& what) {
  if (h.is_none()) return std::nullopt;
  return static_cast<std::size_t>(int_arg(h, what, kMaxSize));
}

std::size_t size_arg(nb::handle h, const std::string& what) {
  return static_cast<std::size_t>(int_arg(h, what, kMaxSize));
}

unsigned threads_arg(nb::handle h) {
  return static_cast<unsigned>(int_arg(h, "num_threads", 0xFFFFFFFFu));
}

// The token ids of a sequence of ints (a list, a tuple, a NumPy array, ...);
// each bad item is named: "ids[3]: expected an int, got float".
std::vector<std::uint32_t> ids_arg(nb::handle seq, const std::string& what) {
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
std::optional<std::filesystem::path> st_cache_path(nb::handle st_cache) {
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

// The tokenizer.json of `t` (to_str, save): minified, or indented by two
// spaces as HF's pretty output is.
std::string tokenizer_json(const snaptok::Pipeline& t, bool pretty) {
  std::string text = t.to_json();
  if (!pretty) return text;
  const nb::module_ json = nb::module_::import_("json");
  return nb::cast<std::string>(json.attr("dumps")(json.attr("loads")(nb::str(text.data(), text.size())),
                                                  "indent"_a = 2, "ensure_ascii"_a = false));
}

// The .st image of `t` as Python bytes (to_st_bytes, and what pickling keeps).
nb::bytes st_bytes_of(const snaptok::Pipeline& t) {
  const std::string image = t.to_st_bytes();
  return nb::bytes(image.data(), image.size());
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

// DocumentEncoder for Python: one call at a time (a second thread gets an
// error rather than a data race), the GIL released while it encodes.
class PyDocumentEncoder {
 public:
  PyDocumentEncoder(const snaptok::Pipeline& tok, bool add_special_tokens, unsigned num_threads,
                    std::size_t part_bytes)
      : encoder_(tok, add_special_tokens, num_threads, part_bytes) {}

  template <class Call>
  std::vector<std::uint32_t> run(const char* name, Call&& call) {
    std::unique_lock lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      throw snaptok::Error(std::string("DocumentEncoder.") + name +
                           ": already running in another thread");
    }
    std::vector<std::uint32_t> ids;
    call(encoder_, ids);
    return ids;
  }
  const snaptok::DocumentEncoder& encoder() const noexcept { return encoder_; }

 private:
  std::mutex mu_;
  snaptok::DocumentEncoder encoder_;
};

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

// Returns the items of any iterable but a str or bytes (a list, a tuple, a
// generator, a NumPy array of str, ...) as a list or tuple, for the batch
// calls; `what` names the argument in the TypeError.
nb::sequence items_of(nb::handle iterable, const std::string& what) {
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

// Holds references to the texts of an iterable and their UTF-8 views, so the
// GIL can be released while they are read.
struct TextBatch {
  std::vector<nb::object> keep;
  std::vector<std::string_view> views;
  bool all_str = true;  // every view is a str's UTF-8 (valid: CPython checks it)

  explicit TextBatch(nb::handle iterable) {
    nb::sequence s = items_of(iterable, "texts");
    const std::size_t n = nb::len(s);
    keep.reserve(n + 1);
    views.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      nb::object item = s[i];
      all_str = all_str && PyUnicode_Check(item.ptr());
      views.push_back(text_of(item, "texts", i));
      keep.push_back(std::move(item));
    }
    keep.push_back(std::move(s));
  }
};

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

snaptok::TruncationStrategy strategy_of(std::string_view s) {
  if (s == "longest_first") return snaptok::TruncationStrategy::longest_first;
  if (s == "only_first") return snaptok::TruncationStrategy::only_first;
  if (s == "only_second") return snaptok::TruncationStrategy::only_second;
  throw nb::value_error(("Unknown `strategy`: `" + std::string(s) +
                         "`. Use one of `longest_first`, `only_first`, or `only_second`")
                            .c_str());
}

bool is_left(std::string_view s) {
  if (s == "left") return true;
  if (s == "right") return false;
  throw nb::value_error(
      ("Unknown `direction`: `" + std::string(s) + "`. Use one of `left` or `right`").c_str());
}

template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T>&& data) {
  auto* owned = new std::vector<T>(std::move(data));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

nb::list offsets_list(const std::vector<snaptok::Offsets>& offsets) {
  nb::list out;
  for (const auto& o : offsets) out.append(nb::make_tuple(o.start, o.end));
  return out;
}

// HF encode_batch: texts, (text, pair) tuples, or with is_pretokenized
// lists of words (or pairs of them), into Encodings padded together.
// `fast`: HF encode_batch_fast (Pipeline::encode_batch_full's `fast`).
std::vector<snaptok::Encoding> encode_batch(const snaptok::Pipeline& t, nb::handle texts, bool is_pretokenized,
                                            bool add_special_tokens, nb::handle threads, bool fast = false) {
  const unsigned num_threads = threads_arg(threads);
  if (is_pretokenized) {
    const nb::sequence items = items_of(texts, "input");
    std::vector<std::pair<WordList, std::optional<WordList>>> inputs;
    for (std::size_t i = 0; i < nb::len(items); ++i) {
      nb::object item = items[i];
      const std::string where = "input[" + std::to_string(i) + "]";
      const bool is_pair = (PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) && nb::len(item) == 2 &&
                           !PyUnicode_Check(nb::object(item[0]).ptr()) &&
                           !PyBytes_Check(nb::object(item[0]).ptr());
      if (is_pair) {
        inputs.emplace_back(WordList(item[0], where + "[0]"), WordList(item[1], where + "[1]"));
      } else {
        inputs.emplace_back(WordList(item, where), std::nullopt);
      }
    }
    std::vector<snaptok::Pipeline::WordsInput> spans;
    spans.reserve(inputs.size());
    for (const auto& [a, b] : inputs) {
      spans.push_back({a.words, b ? std::optional(std::span<const std::string_view>(b->words))
                                  : std::nullopt});
    }
    nb::gil_scoped_release release;
    return t.encode_batch_words(spans, add_special_tokens, fast);
  }
  PairBatch batch(texts);
  nb::gil_scoped_release release;
  return t.encode_batch_full(
      batch.texts,
      batch.any_pair ? std::span<const std::optional<std::string_view>>(batch.pairs)
                     : std::span<const std::optional<std::string_view>>(),
      add_special_tokens, num_threads, fast);
}

// HF's Python AddedToken: a `normalized` left unset follows `special` (a
// special token is matched on the raw text), also after the `special`
// setter or add_special_tokens has changed it.
struct PyAddedToken {
  snaptok::AddedToken flags;
  bool normalized_given = true;

  snaptok::AddedToken token() const {
    snaptok::AddedToken t = flags;
    if (!normalized_given) t.normalized = !t.special;
    return t;
  }
};

// The tokens of add_tokens / add_special_tokens (`special`): each a str
// (normalized unless special) or an AddedToken (snaptok's or HF's), which
// add_special_tokens marks special in place, as HF does.
std::vector<snaptok::AddedToken> added_tokens_arg(nb::handle tokens, bool special) {
  std::vector<snaptok::AddedToken> out;
  for (nb::handle item : items_of(tokens, "tokens")) {
    if (nb::isinstance<nb::str>(item)) {
      out.push_back({.content = nb::cast<std::string>(item), .normalized = !special, .special = special});
    } else if (nb::isinstance<PyAddedToken>(item)) {
      PyAddedToken& token = nb::cast<PyAddedToken&>(item);
      if (special) token.flags.special = true;
      out.push_back(token.token());
    } else if (nb::hasattr(item, "content") && nb::hasattr(item, "normalized")) {
      // Another library's AddedToken (tokenizers.AddedToken, which
      // transformers passes), read through its attributes.
      if (special) nb::setattr(item, "special", nb::bool_(true));
      auto flag = [&](const char* name) { return nb::cast<bool>(item.attr(name)); };
      out.push_back({nb::cast<std::string>(item.attr("content")), flag("single_word"), flag("lstrip"),
                     flag("rstrip"), flag("normalized"), flag("special")});
    } else {
      throw nb::type_error("Input must be a List[Union[str, AddedToken]]");
    }
  }
  return out;
}

// One stage of a tokenizer, as HF's component objects show it
// (tokenizer.normalizer, .pre_tokenizer, .model, .post_processor,
// .decoder): its type and settings, and what the stage does alone. It keeps
// its tokenizer alive; the subclasses add the stage's own calls.
struct Component {
  nb::object owner;  // the Tokenizer
  std::string json;  // the stage's JSON as loaded
  std::string type;  // its "type" member ("" for an untyped legacy form)

  const snaptok::Pipeline& tokenizer() const { return nb::cast<const snaptok::Pipeline&>(owner); }
};
struct NormalizerComponent : Component {};
struct PreTokenizerComponent : Component {};
struct ModelComponent : Component {};
struct PostProcessorComponent : Component {};
struct DecoderComponent : Component {};

// Returns the component of stage `stage` of the tokenizer `self`, or None.
template <class T>
nb::object component_of(nb::pointer_and_handle<snaptok::Pipeline> self, const char* stage) {
  std::string json = self.p->component_json(stage);
  if (json == "null") return nb::none();
  const nb::object config = nb::module_::import_("json").attr("loads")(json);
  std::string type;
  if (nb::isinstance<nb::dict>(config) && nb::cast<nb::dict>(config).contains("type")) {
    type = nb::cast<std::string>(nb::str(config["type"]));
  }
  return nb::cast(T{{nb::borrow(self.h), std::move(json), std::move(type)}});
}

// Adds the read-only property `stage` to the Tokenizer class.
// `sig`: its stub signature, a literal.
template <class T>
void def_component(nb::class_<snaptok::Pipeline>& cls, const char* stage, const char* sig, const char* doc) {
  cls.def_prop_ro(
      stage, [stage](nb::pointer_and_handle<snaptok::Pipeline> self) { return component_of<T>(self, stage); },
      nb::for_getter(nb::sig(sig)), doc);
}

// "Type(key=value, ...)": the type and its settings, as Python values.
std::string component_repr(const Component& c) {
  const nb::object config = nb::module_::import_("json").attr("loads")(c.json);
  std::string out = c.type.empty() ? "Component" : c.type;
  out += "(";
  if (nb::isinstance<nb::dict>(config)) {
    bool first = true;
    for (auto [key, value] : nb::cast<nb::dict>(config)) {
      const std::string k = nb::cast<std::string>(nb::str(key));
      if (k == "type") continue;
      out += (first ? "" : ", ") + k + "=" + nb::cast<std::string>(nb::repr(value));
      first = false;
    }
  }
  return out + ")";
}

}  // namespace

NB_MODULE(_core, m) {
#ifdef SNAPTOK_VERSION
  m.attr("__version__") = SNAPTOK_VERSION;
#else
#error "build the module through CMake, which defines SNAPTOK_VERSION"
#endif
  m.doc() = "snaptok: exact, fast Hugging Face tokenizers";

  nb::exception<snaptok::Error> snaptok_error(m, "SnaptokError", PyExc_ValueError);
  snaptok_error.attr("__doc__") =
      "The error snaptok raises when loading, encoding or decoding fails (a ValueError):\n"
      "the message names what failed and where.\n\n"
      "    >>> snaptok.Tokenizer.from_str(\"{}\")\n"
      "    Traceback (most recent call last):\n"
      "        ...\n"
      "    snaptok._core.SnaptokError: tokenizer.json: missing field \"model\"\n"
      "    >>> issubclass(snaptok.SnaptokError, ValueError)\n"
      "    True";

  nb::class_<snaptok::Encoding>(m, "Encoding",
                                "The output of encode: ids, tokens, offsets and masks, as HF.\n\n"
                                "    >>> e = tok.encode(\"Hello world\")\n"
                                "    >>> e\n"
                                "    Encoding(num_tokens=2, n_sequences=1, overflowing=0)\n"
                                "    >>> (e.ids, e.tokens, e.offsets)\n"
                                "    ([15496, 995], ['Hello', 'Ġworld'], [(0, 5), (5, 11)])")
      .def_ro("ids", &snaptok::Encoding::ids, "The token ids.")
      .def_ro("type_ids", &snaptok::Encoding::type_ids,
              "The type id (segment) of each token, as the post-processor sets it; 0 without one.")
      .def_ro("tokens", &snaptok::Encoding::tokens, "The token strings, one per id.")
      .def_prop_ro("offsets", [](const snaptok::Encoding& e) { return offsets_list(e.offsets); },
                   nb::for_getter(nb::sig("def offsets(self, /) -> list[tuple[int, int]]")),
                   "(start, end) char offsets of each token in the input")
      .def_ro("attention_mask", &snaptok::Encoding::attention_mask,
              "1 for each token of the input, 0 for each padding token.")
      .def_ro("special_tokens_mask", &snaptok::Encoding::special_tokens_mask,
              "1 for each token the post-processor or the padding added, 0 for the others.\n\n"
              "    >>> t5.encode(\"Hi\").special_tokens_mask\n"
              "    [0, 0, 0, 1]")
      .def_ro("word_ids", &snaptok::Encoding::word_ids,
              "The word of each token, counted in its own sequence; None for the tokens the\n"
              "post-processor or the padding added.\n\n"
              "    >>> t5.encode(\"Hello world\").word_ids\n"
              "    [0, 0, 0, 1, None]")
      .def_prop_ro("words", [](const snaptok::Encoding& e) { return e.word_ids; },
                   "The same as word_ids (HF's older name).")
      .def_prop_ro("sequence_ids", &snaptok::Encoding::sequence_ids,
                   "The input sequence (0, or 1 for a pair's second) of each token; None for the\n"
                   "tokens the post-processor or the padding added.\n\n"
                   "    >>> t5.encode(\"Hello world\", \"Hi\").sequence_ids\n"
                   "    [0, 0, 0, 0, None, 1, 1, 1, None]")
      .def_ro("overflowing", &snaptok::Encoding::overflowing,
              "The parts truncation cut off, each an Encoding (see Tokenizer.enable_truncation).")
      .def_prop_ro("n_sequences", &snaptok::Encoding::n_sequences,
                   "The number of input sequences: 1, or 2 for a pair.")
      .def("__len__", &snaptok::Encoding::size)
      .def("__repr__", [](const snaptok::Encoding& e) {
        return "Encoding(num_tokens=" + std::to_string(e.size()) + ", n_sequences=" +
               std::to_string(e.n_sequences()) + ", overflowing=" + std::to_string(e.overflowing.size()) + ")";
      })
      // Alignment lookups: HF's answers, None where HF returns None.
      .def(
          "token_to_sequence",
          [](const snaptok::Encoding& e, nb::handle token_index) {
            return e.token_to_sequence(size_arg(token_index, "token_index"));
          },
          "token_index"_a,
          "The input sequence (0 or 1) that a token comes from.\n\n"
          "    >>> t5.encode(\"Hello world\", \"Hi\").token_to_sequence(5)\n"
          "    1")
      .def(
          "token_to_chars",
          [](const snaptok::Encoding& e, nb::handle token_index) -> std::optional<std::pair<std::size_t, std::size_t>> {
            const auto o = e.token_to_chars(size_arg(token_index, "token_index"));
            if (!o) return std::nullopt;
            return std::pair{o->start, o->end};
          },
          "token_index"_a,
          "A token's (start, end) char offsets in its own sequence.\n\n"
          "    >>> tok.encode(\"Hello world\").token_to_chars(1)\n"
          "    (5, 11)")
      .def(
          "token_to_word",
          [](const snaptok::Encoding& e, nb::handle token_index) {
            return e.token_to_word(size_arg(token_index, "token_index"));
          },
          "token_index"_a,
          "The word a token is part of, in its own sequence.\n\n"
          "    >>> t5.encode(\"Hello world\").token_to_word(3)\n"
          "    1")
      .def(
          "word_to_tokens",
          [](const snaptok::Encoding& e, nb::handle word_index, nb::handle sequence_index) {
            return e.word_to_tokens(static_cast<std::uint32_t>(int_arg(word_index, "word_index", kMaxId)),
                                    size_arg(sequence_index, "sequence_index"));
          },
          "word_index"_a, "sequence_index"_a = 0,
          "The (first, last + 1) tokens of a word.\n\n"
          "    >>> t5.encode(\"Hello world\").word_to_tokens(0)\n"
          "    (0, 3)")
      .def(
          "word_to_chars",
          [](const snaptok::Encoding& e, nb::handle word_index,
             nb::handle sequence_index) -> std::optional<std::pair<std::size_t, std::size_t>> {
            const auto o = e.word_to_chars(static_cast<std::uint32_t>(int_arg(word_index, "word_index", kMaxId)),
                                           size_arg(sequence_index, "sequence_index"));
            if (!o) return std::nullopt;
            return std::pair{o->start, o->end};
          },
          "word_index"_a, "sequence_index"_a = 0,
          "The (start, end) chars a word spans.\n\n"
          "    >>> tok.encode(\"Hello world\").word_to_chars(1)\n"
          "    (5, 11)")
      .def(
          "char_to_token",
          [](const snaptok::Encoding& e, nb::handle char_pos, nb::handle sequence_index) {
            return e.char_to_token(size_arg(char_pos, "char_pos"), size_arg(sequence_index, "sequence_index"));
          },
          "char_pos"_a, "sequence_index"_a = 0,
          "The token that holds a char of the input.\n\n"
          "    >>> e = t5.encode(\"Hello world\", \"Hi\")\n"
          "    >>> (e.char_to_token(6), e.char_to_token(0, sequence_index=1))\n"
          "    (3, 5)")
      .def(
          "char_to_word",
          [](const snaptok::Encoding& e, nb::handle char_pos, nb::handle sequence_index) {
            return e.char_to_word(size_arg(char_pos, "char_pos"), size_arg(sequence_index, "sequence_index"));
          },
          "char_pos"_a, "sequence_index"_a = 0,
          "The word that holds a char of the input.\n\n"
          "    >>> tok.encode(\"Hello world\").char_to_word(7)\n"
          "    1")
      // In-place changes (HF Encoding's), on this Python object only.
      .def(
          "set_sequence_id",
          [](snaptok::Encoding& e, nb::handle sequence_id) { e.set_sequence_id(size_arg(sequence_id, "sequence_id")); },
          "sequence_id"_a,
          "Marks every token as part of sequence `sequence_id`.\n\n"
          "    >>> e = tok.encode(\"Hello world\")\n"
          "    >>> e.set_sequence_id(1)\n"
          "    >>> e.sequence_ids\n"
          "    [1, 1]")
      .def(
          "pad",
          [](snaptok::Encoding& e, nb::handle length, std::string_view direction, nb::handle pad_id,
             nb::handle pad_type_id, const std::string& pad_token) {
            snaptok::pad_encoding(e, size_arg(length, "length"),
                                  static_cast<std::uint32_t>(int_arg(pad_id, "pad_id", kMaxId)),
                                  static_cast<std::uint32_t>(int_arg(pad_type_id, "pad_type_id", kMaxId)), pad_token,
                                  is_left(direction) ? snaptok::PaddingDirection::left
                                                     : snaptok::PaddingDirection::right);
          },
          "length"_a, "direction"_a = "right", "pad_id"_a = 0, "pad_type_id"_a = 0, "pad_token"_a = "[PAD]",
          "Pads to `length` tokens (overflowing parts too); longer encodings stay as they are.\n\n"
          "    >>> e = tok.encode(\"Hello world\")\n"
          "    >>> e.pad(4, pad_id=50256, pad_token=\"<|endoftext|>\")\n"
          "    >>> (e.ids, e.attention_mask)\n"
          "    ([15496, 995, 50256, 50256], [1, 1, 0, 0])")
      .def(
          "truncate",
          [](snaptok::Encoding& e, nb::handle max_length, nb::handle stride, std::string_view direction) {
            snaptok::truncate_encoding(e, size_arg(max_length, "max_length"), size_arg(stride, "stride"),
                                       is_left(direction) ? snaptok::TruncationDirection::left
                                                          : snaptok::TruncationDirection::right);
          },
          "max_length"_a, "stride"_a = 0, "direction"_a = "right",
          "Keeps `max_length` tokens; the rest goes to `overflowing`, in windows overlapping by `stride`.\n\n"
          "    >>> e = tok.encode(\"Hello world, again\")\n"
          "    >>> e.truncate(2)\n"
          "    >>> (e.ids, [o.ids for o in e.overflowing])\n"
          "    ([15496, 995], [[11, 757]])")
      .def_static(
          "merge",
          [](nb::iterable encodings, bool growing_offsets) {
            snaptok::Encoding out;
            for (nb::handle item : encodings) {
              snaptok::merge_encodings(out, nb::cast<snaptok::Encoding>(item), growing_offsets);
            }
            return out;
          },
          "encodings"_a, "growing_offsets"_a = true,
          "One Encoding of several, one after the other; with growing_offsets, each one's offsets\n"
          "continue from where the previous one's end.\n\n"
          "    >>> e = snaptok.Encoding.merge([tok.encode(\"Hello\"), tok.encode(\" world\")])\n"
          "    >>> (e.ids, e.offsets)\n"
          "    ([15496, 995], [(0, 5), (5, 11)])")
      // Pickled as its fields (the overflowing parts pickle the same way).
      .def("__getstate__",
           [](const snaptok::Encoding& e) {
             std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> ranges;
             for (const auto& [seq, r] : e.sequence_ranges) ranges.emplace_back(seq, r.start, r.end);
             return nb::make_tuple(e.ids, e.type_ids, e.tokens, offsets_list(e.offsets), e.word_ids,
                                   e.special_tokens_mask, e.attention_mask, e.overflowing, ranges);
           })
      .def("__setstate__",
           [](snaptok::Encoding& e, nb::tuple state) {
             if (state.size() != 9) throw nb::value_error("Encoding.__setstate__: expected 9 fields");
             new (&e) snaptok::Encoding();
             e.ids = nb::cast<std::vector<std::uint32_t>>(state[0]);
             e.type_ids = nb::cast<std::vector<std::uint32_t>>(state[1]);
             e.tokens = nb::cast<std::vector<std::string>>(state[2]);
             for (const auto& [start, end] : nb::cast<std::vector<std::pair<std::size_t, std::size_t>>>(state[3])) {
               e.offsets.push_back({start, end});
             }
             e.word_ids = nb::cast<std::vector<std::optional<std::uint32_t>>>(state[4]);
             e.special_tokens_mask = nb::cast<std::vector<std::uint32_t>>(state[5]);
             e.attention_mask = nb::cast<std::vector<std::uint32_t>>(state[6]);
             e.overflowing = nb::cast<std::vector<snaptok::Encoding>>(state[7]);
             for (const auto& [seq, start, end] :
                  nb::cast<std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>>(state[8])) {
               e.sequence_ranges[seq] = {start, end};
             }
             const std::size_t n = e.ids.size();
             bool ok = e.type_ids.size() == n && e.tokens.size() == n && e.offsets.size() == n &&
                       e.word_ids.size() == n && e.special_tokens_mask.size() == n && e.attention_mask.size() == n;
             for (const auto& [seq, r] : e.sequence_ranges) ok = ok && r.start <= r.end && r.end <= n;
             if (!ok) throw nb::value_error("Encoding.__setstate__: fields of different lengths");
           })
      .def("__copy__", [](const snaptok::Encoding& e) { return e; })
      .def("__deepcopy__", [](const snaptok::Encoding& e, nb::handle) { return e; }, "memo"_a);

  nb::class_<PyAddedToken>(m, "AddedToken",
                           "A token matched in the text before the model runs (HF AddedToken).\n\n"
                           "    >>> t = snaptok.AddedToken(\"<tool>\", special=True)\n"
                           "    >>> (t.content, t.normalized, t.special)\n"
                           "    ('<tool>', False, True)")
      .def(
          "__init__",
          [](PyAddedToken* t, std::string content, bool single_word, bool lstrip, bool rstrip,
             std::optional<bool> normalized, bool special) {
            new (t) PyAddedToken{{std::move(content), single_word, lstrip, rstrip, normalized.value_or(true), special},
                                 normalized.has_value()};
          },
          "content"_a = "", "single_word"_a = false, "lstrip"_a = false, "rstrip"_a = false,
          "normalized"_a = nb::none(), "special"_a = false,
          "`normalized` left out follows `special`: a special token is matched on the raw text.")
      .def_prop_rw(
          "content", [](const PyAddedToken& t) { return t.flags.content; },
          [](PyAddedToken& t, std::string content) { t.flags.content = std::move(content); },
          "The token's text.")
      .def_prop_ro("single_word", [](const PyAddedToken& t) { return t.flags.single_word; },
                   "True when the token is matched only as a whole word, never inside one.")
      .def_prop_ro("lstrip", [](const PyAddedToken& t) { return t.flags.lstrip; },
                   "True when a match takes in the whitespace on its left.")
      .def_prop_ro("rstrip", [](const PyAddedToken& t) { return t.flags.rstrip; },
                   "True when a match takes in the whitespace on its right.")
      .def_prop_ro("normalized", [](const PyAddedToken& t) { return t.token().normalized; },
                   "True when the token is matched in the normalized text, False in the raw input;\n"
                   "left unset, it is the opposite of `special`.\n\n"
                   "    >>> [snaptok.AddedToken(\"<x>\", special=s).normalized for s in (False, True)]\n"
                   "    [True, False]")
      .def_prop_rw(
          "special", [](const PyAddedToken& t) { return t.flags.special; },
          [](PyAddedToken& t, bool special) { t.flags.special = special; },
          "True for a special token, which decode leaves out with skip_special_tokens=True.")
      .def("__str__", [](const PyAddedToken& t) { return t.flags.content; })
      .def("__repr__",
           [](const PyAddedToken& pt) {
             const snaptok::AddedToken t = pt.token();
             auto flag = [](bool b) { return b ? "True" : "False"; };
             return std::string("AddedToken(\"") + t.content + "\", rstrip=" + flag(t.rstrip) + ", lstrip=" + flag(t.lstrip) + ", single_word=" +
                    flag(t.single_word) + ", normalized=" + flag(t.normalized) + ", special=" + flag(t.special) +
                    ")";
           })
      .def("__eq__", [](const PyAddedToken& a, const PyAddedToken& b) { return a.token() == b.token(); })
      .def("__hash__", [](const PyAddedToken& t) { return nb::hash(nb::str(t.flags.content.data(), t.flags.content.size())); })
      .def("__getstate__",
           [](const PyAddedToken& pt) {
             const snaptok::AddedToken t = pt.token();
             nb::dict d;
             d["content"] = t.content;
             d["single_word"] = t.single_word;
             d["lstrip"] = t.lstrip;
             d["rstrip"] = t.rstrip;
             d["normalized"] = t.normalized;
             d["special"] = t.special;
             return d;
           })
      .def("__setstate__", [](PyAddedToken& t, nb::dict d) {
        new (&t) PyAddedToken{{nb::cast<std::string>(d["content"]), nb::cast<bool>(d["single_word"]),
                               nb::cast<bool>(d["lstrip"]), nb::cast<bool>(d["rstrip"]),
                               nb::cast<bool>(d["normalized"]), nb::cast<bool>(d["special"])},
                              true};
      });

  nb::class_<PyDocumentEncoder>(
      m, "DocumentEncoder",
      "Encodes one document given in pieces of any size with bounded memory (from\n"
      "Tokenizer.document_encoder): feed() returns the ids that are final so far, finish()\n"
      "the rest; all of them concatenated equal encoding the whole document at once.\n\n"
      "    >>> d = tok.document_encoder()\n"
      "    >>> np.concatenate([d.feed(\"Hello wor\"), d.feed(\"ld, again\"), d.finish()])\n"
      "    array([15496,   995,    11,   757], dtype=uint32)")
      .def(
          "feed",
          [](PyDocumentEncoder& self, nb::handle chunk) {
            BytesView bytes(chunk, "chunk");
            std::vector<std::uint32_t> ids;
            {
              GilReleaseFor release(bytes.get().size());
              ids = self.run("feed", [&](snaptok::DocumentEncoder& e, std::vector<std::uint32_t>& out) {
                e.feed(bytes.get(), out);
              });
            }
            return to_numpy(std::move(ids));
          },
          "chunk"_a,
          "Adds the next bytes of the document (str, bytes or bytes-like; may end inside a\n"
          "UTF-8 char); returns the uint32 ids that are now final (often empty). Text after\n"
          "the last cut point is held back.\n\n"
          "    >>> d = tok.document_encoder()\n"
          "    >>> d.feed(\"Hello wor\")  # fewer than part_bytes: all held back\n"
          "    array([], dtype=uint32)\n"
          "    >>> d.pending_bytes\n"
          "    9")
      .def(
          "finish",
          [](PyDocumentEncoder& self) {
            std::vector<std::uint32_t> ids;
            {
              nb::gil_scoped_release release;
              ids = self.run("finish", [](snaptok::DocumentEncoder& e, std::vector<std::uint32_t>& out) {
                e.finish(out);
              });
            }
            return to_numpy(std::move(ids));
          },
          "Returns the ids of the text held back, with what the post-processor puts after\n"
          "the document (e.g. EOS). The encoder is spent afterwards.\n\n"
          "    >>> d = t5.document_encoder()\n"
          "    >>> _ = d.feed(\"Hello world\")\n"
          "    >>> d.finish()  # ends with </s> = 2\n"
          "    array([151,  88,  21, 887,   2], dtype=uint32)")
      .def_prop_ro("bytes_fed", [](const PyDocumentEncoder& self) { return self.encoder().bytes_fed(); },
                   "Bytes given to feed() so far.")
      .def_prop_ro("pending_bytes",
                   [](const PyDocumentEncoder& self) { return self.encoder().pending_bytes(); },
                   "Bytes held back, not encoded yet.")
      .def_prop_ro("finished", [](const PyDocumentEncoder& self) { return self.encoder().finished(); },
                   "True once finish() ran or a call failed.\n\n"
                   "    >>> d = tok.document_encoder()\n"
                   "    >>> _ = d.finish()\n"
                   "    >>> d.finished\n"
                   "    True");

  nb::class_<snaptok::DecodeStream>(
      m, "DecodeStream",
      "Decodes ids as a model generates them (HF tokenizers.decoders.DecodeStream): each\n"
      "step returns the text its ids add, or None while a char is still cut off.\n\n"
      "Examples:\n"
      "    >>> stream = snaptok.DecodeStream(skip_special_tokens=True)\n"
      "    >>> [stream.step(tok, i) for i in tok.encode('Hello 😀').ids]\n"
      "    ['Hello', None, ' 😀']")
      .def(
          "__init__",
          [](snaptok::DecodeStream* self, nb::handle ids, bool skip_special_tokens) {
            if (ids.is_none()) {
              new (self) snaptok::DecodeStream(skip_special_tokens);
            } else {
              new (self) snaptok::DecodeStream(ids_arg(ids, "ids"), skip_special_tokens);
            }
          },
          "ids"_a = nb::none(), "skip_special_tokens"_a = false,
          "A stream that continues after `ids` when given (a prompt, or the ids so far).")
      .def(
          "step",
          [](snaptok::DecodeStream& self, const snaptok::Pipeline& tokenizer,
             nb::handle id) -> std::optional<std::string> {
            // The GIL stays held: a stream is one generation's state, and
            // decoding a few ids is quick.
            if (PyLong_Check(id.ptr())) {
              return self.step(tokenizer, static_cast<std::uint32_t>(int_arg(id, "id", kMaxId)));
            }
            const std::vector<std::uint32_t> ids = ids_arg(id, "id");
            return self.step(tokenizer, std::span<const std::uint32_t>(ids));
          },
          "tokenizer"_a, "id"_a,
          "Adds the next id (or a list of ids) and returns the text now complete, or None.\n\n"
          "    >>> stream = snaptok.DecodeStream()\n"
          "    >>> (stream.step(tok, 15496), stream.step(tok, [995, 11]))\n"
          "    ('Hello', ' world,')");

  nb::class_<Component>(m, "Component",
                        "One stage of a tokenizer (HF's component objects): its type and settings.\n\n"
                        "    >>> t5.model\n"
                        "    Unigram(unk_id=0, byte_fallback=False)\n"
                        "    >>> isinstance(t5.model, snaptok.Component)\n"
                        "    True")
      .def_prop_ro("type", [](const Component& c) { return c.type; },
                   "The stage's type, e.g. 'BertNormalizer'.\n\n"
                   "    >>> t5.post_processor.type\n"
                   "    'TemplateProcessing'")
      .def_prop_ro(
          "config", [](const Component& c) { return nb::module_::import_("json").attr("loads")(c.json); },
          nb::for_getter(nb::sig("def config(self, /) -> dict[str, typing.Any]")),
          "The stage's settings as loaded from tokenizer.json (a dict; the model's without its vocabulary).\n\n"
          "    >>> tok.pre_tokenizer.config\n"
          "    {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True}")
      .def("__repr__", &component_repr)
      .def("__getstate__", [](const Component& c) { return nb::bytes(c.json.data(), c.json.size()); },
           "The stage's JSON (as HF's __getstate__).");
  nb::class_<NormalizerComponent, Component>(
      m, "Normalizer",
      "The normalizer of a tokenizer (tokenizer.normalizer): what it does to the\n"
      "text before the pre-tokenizer splits it.\n\n"
      "    >>> [n[\"type\"] for n in t5.normalizer.config[\"normalizers\"]]\n"
      "    ['Precompiled', 'Strip', 'Replace']")
      .def(
          "normalize_str",
          [](const NormalizerComponent& c, nb::handle text) { return c.tokenizer().normalize_str(text_of(text, "text")); },
          "text"_a,
          "Returns `text` after this normalizer alone (HF normalize_str).\n\n"
          "    >>> t5.normalizer.normalize_str(\"Hello   world \")  # strips the right, runs of spaces become ▁\n"
          "    'Hello▁world'");
  nb::class_<PreTokenizerComponent, Component>(
      m, "PreTokenizer",
      "The pre-tokenizer of a tokenizer (tokenizer.pre_tokenizer): how it splits the\n"
      "normalized text into pieces the model encodes one by one.\n\n"
      "    >>> tok.pre_tokenizer\n"
      "    ByteLevel(add_prefix_space=False, trim_offsets=True)")
      .def(
          "pre_tokenize_str",
          [](const PreTokenizerComponent& c, nb::handle text) {
            nb::list out;
            for (const auto& [piece, offsets] : c.tokenizer().pre_tokenize_str(text_of(text, "text"))) {
              out.append(nb::make_tuple(piece, nb::make_tuple(offsets.start, offsets.end)));
            }
            return out;
          },
          "text"_a,
          "Returns the pieces of `text` after this pre-tokenizer alone, each with its char\n"
          "offsets (HF pre_tokenize_str).\n\n"
          "    >>> tok.pre_tokenizer.pre_tokenize_str(\"Hello world\")\n"
          "    [('Hello', (0, 5)), ('Ġworld', (5, 11))]",
          nb::sig("def pre_tokenize_str(self, text: str | bytes) -> list[tuple[str, tuple[int, int]]]"));
  nb::class_<ModelComponent, Component>(
      m, "Model",
      "The model of a tokenizer (tokenizer.model): BPE, WordPiece, WordLevel or\n"
      "Unigram, with its vocabulary.\n\n"
      "    >>> (tok.model.type, t5.model.type)\n"
      "    ('BPE', 'Unigram')")
      .def(
          "token_to_id",
          [](const ModelComponent& c, const std::string& token) { return c.tokenizer().model().token_to_id(token); },
          "token"_a,
          "Returns the model vocabulary's id of `token` (added tokens aside), or None.\n\n"
          "    >>> tok.model.token_to_id(\"Hello\")\n"
          "    15496")
      .def(
          "id_to_token",
          [](const ModelComponent& c, nb::handle id) -> std::optional<std::string> {
            const auto token = c.tokenizer().model().id_to_token(static_cast<std::uint32_t>(int_arg(id, "id", kMaxId)));
            return token ? std::optional<std::string>(*token) : std::nullopt;
          },
          "id"_a,
          "Returns the model vocabulary's token of `id`, or None.\n\n"
          "    >>> tok.model.id_to_token(15496)\n"
          "    'Hello'")
      .def(
          "get_vocab_size", [](const ModelComponent& c) { return c.tokenizer().model().vocab_size(); },
          "The size of the model's vocabulary.\n\n"
          "    >>> t5.model.get_vocab_size()\n"
          "    1000");
  nb::class_<PostProcessorComponent, Component>(
      m, "PostProcessor",
      "The post-processor of a tokenizer (tokenizer.post_processor): what it adds\n"
      "around the encoded sequences (special tokens, type ids).\n\n"
      "    >>> t5.post_processor.type\n"
      "    'TemplateProcessing'")
      .def(
          "num_special_tokens_to_add",
          [](const PostProcessorComponent& c, bool is_pair) { return c.tokenizer().num_special_tokens_to_add(is_pair); },
          "is_pair"_a,
          "Returns how many ids this post-processor adds to a sequence, or to a pair.\n\n"
          "    >>> p = t5.post_processor\n"
          "    >>> (p.num_special_tokens_to_add(False), p.num_special_tokens_to_add(True))\n"
          "    (1, 2)");
  nb::class_<DecoderComponent, Component>(
      m, "Decoder",
      "The decoder of a tokenizer (tokenizer.decoder): how it turns tokens back\n"
      "into text.\n\n"
      "    >>> tok.decoder.type\n"
      "    'ByteLevel'")
      .def(
          "decode",
          [](const DecoderComponent& c, std::vector<std::string> tokens) {
            return c.tokenizer().decode_tokens(std::move(tokens));
          },
          "tokens"_a,
          "Returns the text of `tokens` after this decoder alone (HF decoder.decode).\n\n"
          "    >>> tok.decoder.decode([\"Hello\", \"Ġworld\"])\n"
          "    'Hello world'");

  nb::class_<snaptok::Pipeline> tokenizer_class(
      m, "Tokenizer",
      "A tokenizer loaded from a tokenizer.json or a .st file.\n\n"
      "The examples use `path`, GPT-2's tokenizer.json; `tok`, the tokenizer it\n"
      "loads (byte-level BPE); and `t5`, a small T5-style Unigram tokenizer whose\n"
      "post-processor appends '</s>' (id 2).\n\n"
      "    >>> tok = snaptok.Tokenizer.from_file(path)\n"
      "    >>> tok.encode(\"Hello world\").tokens\n"
      "    ['Hello', 'Ġworld']");
  def_component<NormalizerComponent>(tokenizer_class, "normalizer",
                                     "def normalizer(self, /) -> Normalizer | None",
                                     "The normalizer (a snaptok.Normalizer), or None.\n\n"
                                     "    >>> (tok.normalizer, t5.normalizer.type)\n"
                                     "    (None, 'Sequence')");
  def_component<PreTokenizerComponent>(tokenizer_class, "pre_tokenizer",
                                       "def pre_tokenizer(self, /) -> PreTokenizer | None",
                                       "The pre-tokenizer (a snaptok.PreTokenizer), or None.\n\n"
                                       "    >>> t5.pre_tokenizer\n"
                                       "    Metaspace(replacement='▁', prepend_scheme='always', split=True)");
  def_component<ModelComponent>(tokenizer_class, "model",
                                "def model(self, /) -> Model",
                                "The model (a snaptok.Model): its type and settings.\n\n"
                                "    >>> t5.model\n"
                                "    Unigram(unk_id=0, byte_fallback=False)");
  def_component<PostProcessorComponent>(tokenizer_class, "post_processor",
                                        "def post_processor(self, /) -> PostProcessor | None",
                                        "The post-processor (a snaptok.PostProcessor), or None.\n\n"
                                        "    >>> t5.post_processor.type\n"
                                        "    'TemplateProcessing'");
  def_component<DecoderComponent>(tokenizer_class, "decoder",
                                  "def decoder(self, /) -> Decoder | None",
                                  "The decoder (a snaptok.Decoder), or None.\n\n"
                                  "    >>> tok.decoder\n"
                                  "    ByteLevel(add_prefix_space=True, trim_offsets=True)");
  tokenizer_class
      .def_static(
          "from_file",
          [](const std::filesystem::path& path, nb::handle st_cache) {
            const std::optional<std::filesystem::path> sidecar = st_cache_path(st_cache);
            nb::gil_scoped_release release;
            if (sidecar) return snaptok::Pipeline::from_file_cached(path, *sidecar);
            return snaptok::Pipeline::from_file(path);
          },
          "path"_a, "st_cache"_a = false,
          "Loads a tokenizer.json or a .st file. With st_cache=True (or a path), a\n"
          "tokenizer.json loads through a .st sidecar (path + '.st' by default),\n"
          "rebuilt whenever the JSON changes.\n\n"
          "    >>> tok = snaptok.Tokenizer.from_file(path)\n"
          "    >>> tok.get_vocab_size()\n"
          "    50257")
      .def_static(
          "from_str", [](std::string_view json) { return snaptok::Pipeline::from_json(json); },
          "json"_a,
          "Loads a tokenizer from the text of a tokenizer.json.\n\n"
          "    >>> snaptok.Tokenizer.from_str(t5.to_str()).encode_ids(\"Hello world\")\n"
          "    [151, 88, 21, 887, 2]")
      .def_static(
          "from_buffer",
          [](nb::handle data) {
            const BytesView bytes(data, "data");
            const auto raw = std::as_bytes(std::span(bytes.get()));
            if (snaptok::st::has_magic(raw)) return snaptok::Pipeline::from_st_buffer(raw);
            return snaptok::Pipeline::from_json(std::string_view(bytes.get().data(), bytes.get().size()));
          },
          "data"_a,
          "Loads a tokenizer from bytes: a tokenizer.json's (as HF from_buffer), or a .st file's\n"
          "(see to_st_bytes), told apart by the .st magic.\n\n"
          "    >>> snaptok.Tokenizer.from_buffer(t5.to_st_bytes()).encode_ids(\"Hello world\")\n"
          "    [151, 88, 21, 887, 2]")
      .def_static(
          "_from_byte_ranks",
          [](std::string pattern, nb::dict ranks) {
            std::vector<std::pair<std::string, std::uint32_t>> table;
            table.reserve(nb::len(ranks));
            PyObject* key = nullptr;
            PyObject* value = nullptr;
            Py_ssize_t pos = 0;
            while (PyDict_Next(ranks.ptr(), &pos, &key, &value)) {
              if (!PyBytes_Check(key)) {
                throw nb::type_error((std::string("ranks: keys must be bytes, got ") +
                                      nb::type_name(nb::handle(key).type()).c_str())
                                         .c_str());
              }
              std::uint32_t rank = 0;
              int overflow = 0;
              const long long v = PyLong_CheckExact(value) ? PyLong_AsLongLongAndOverflow(value, &overflow) : -1;
              if (PyLong_CheckExact(value) && overflow == 0 && v >= 0 && v < static_cast<long long>(kMaxId)) {
                rank = static_cast<std::uint32_t>(v);
              } else {
                PyErr_Clear();
                rank = static_cast<std::uint32_t>(
                    int_arg(value, std::string("ranks[") + nb::repr(nb::handle(key)).c_str() + "]", kMaxId - 1));
              }
              table.emplace_back(std::string(PyBytes_AS_STRING(key), static_cast<std::size_t>(PyBytes_GET_SIZE(key))),
                                 rank);
            }
            nb::gil_scoped_release release;
            return snaptok::Pipeline::from_byte_ranks(pattern, table);
          },
          "pattern"_a, "ranks"_a,
          "Private (snaptok.tiktoken uses it): the byte-level BPE tiktoken builds from a split\n"
          "pattern and {token bytes: rank}, without special tokens.")
      .def(
          "_byte_level_bytes",
          [](const snaptok::Pipeline& t, nb::handle ids, nb::dict extra) -> nb::object {
            const auto* bpe = dynamic_cast<const snaptok::BpeModel*>(&t.model());
            if (!bpe) return nb::none();
            const std::vector<std::uint32_t> list = ids_arg(ids, "ids");
            const std::span<const std::uint32_t> all(list);
            std::string bytes;
            for (std::size_t at = 0; at < all.size(); ++at) {
              at += bpe->append_token_bytes(all.subspan(at), bytes);
              if (at == all.size()) break;
              PyObject* found = PyDict_GetItem(extra.ptr(), nb::int_(all[at]).ptr());  // borrowed
              if (!found || !PyBytes_Check(found)) return nb::none();
              bytes.append(PyBytes_AS_STRING(found), static_cast<std::size_t>(PyBytes_GET_SIZE(found)));
            }
            return nb::bytes(bytes.data(), bytes.size());
          },
          "ids"_a, "extra"_a,
          "Private (snaptok.tiktoken uses it): the bytes the ids stand for, joined: a BPE\n"
          "model's byte-level tokens, else extra[id]; None when an id is neither.")
      .def(
          "to_str",
          [](const snaptok::Pipeline& t, bool pretty) { return tokenizer_json(t, pretty); },
          "pretty"_a = false,
          "The tokenizer as tokenizer.json text (HF to_str): the pipeline as loaded, the current\n"
          "truncation and padding, the model's tables. HF and snaptok load it to the same tokenizer.\n\n"
          "    >>> import json\n"
          "    >>> json.loads(tok.to_str())[\"pre_tokenizer\"]\n"
          "    {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True}")
      .def(
          "save",
          [](const snaptok::Pipeline& t, const std::filesystem::path& path, bool pretty) {
            snaptok::st::write_atomically(path, tokenizer_json(t, pretty));
          },
          "path"_a, "pretty"_a = true,
          "Writes to_str() to `path` (atomically: a temporary file, then a rename).\n\n"
          "    >>> t5.save(f\"{tmp}/tokenizer.json\")\n"
          "    >>> snaptok.Tokenizer.from_file(f\"{tmp}/tokenizer.json\").encode_ids(\"Hello world\")\n"
          "    [151, 88, 21, 887, 2]")
      .def(
          "get_vocab",
          [](const snaptok::Pipeline& t, bool with_added_tokens) {
            nb::dict out;
            for (const auto& [token, id] : t.model().vocab()) out[nb::str(token.data(), token.size())] = id;
            if (with_added_tokens) {
              for (const auto& [id, token] : t.added_vocabulary()->tokens()) {
                out[nb::str(token.content.data(), token.content.size())] = id;
              }
            }
            return out;
          },
          "with_added_tokens"_a = true,
          "{token: id} for the vocabulary (and the added tokens).\n\n"
          "    >>> vocab = tok.get_vocab()\n"
          "    >>> (len(vocab), vocab[\"Hello\"])\n"
          "    (50257, 15496)",
          nb::sig("def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]"))
      .def(
          "add_tokens",
          [](snaptok::Pipeline& t, nb::handle tokens) { return t.add_tokens(added_tokens_arg(tokens, false)); },
          "tokens"_a,
          "Adds tokens matched in the text before the model runs (HF add_tokens): each a str or an\n"
          "AddedToken. A token already in the vocabulary keeps its id; a new one gets the next id.\n"
          "Returns how many were taken (not the empty ones, nor those already there unchanged).\n\n"
          "    >>> tok.add_tokens([\"snaptokenizer\"])\n"
          "    1\n"
          "    >>> tok.encode(\"a snaptokenizer\").tokens[-1]\n"
          "    'snaptokenizer'",
          nb::sig("def add_tokens(self, tokens: typing.Iterable[str | AddedToken]) -> int"))
      .def(
          "add_special_tokens",
          [](snaptok::Pipeline& t, nb::handle tokens) { return t.add_tokens(added_tokens_arg(tokens, true)); },
          "tokens"_a,
          "Adds special tokens (HF add_special_tokens): as add_tokens, with each token marked special\n"
          "(an AddedToken given is changed in place), so decode can skip it. Returns how many were taken.\n\n"
          "    >>> tok.add_special_tokens([\"<|tool|>\"])\n"
          "    1\n"
          "    >>> tok.decode(tok.encode(\"<|tool|> hi\").ids)\n"
          "    ' hi'",
          nb::sig("def add_special_tokens(self, tokens: typing.Iterable[str | AddedToken]) -> int"))
      .def(
          "get_added_tokens_decoder",
          [](const snaptok::Pipeline& t) {
            nb::dict out;
            for (const auto& [id, token] : t.added_vocabulary()->tokens()) out[nb::int_(id)] = nb::cast(PyAddedToken{token});
            return out;
          },
          "{id: AddedToken} for the added tokens, in id order (HF get_added_tokens_decoder).\n\n"
          "    >>> t5.get_added_tokens_decoder()[2]\n"
          "    AddedToken(\"</s>\", rstrip=False, lstrip=False, single_word=False, normalized=False, special=True)",
          nb::sig("def get_added_tokens_decoder(self) -> dict[int, AddedToken]"))
      .def("to_st_bytes", &st_bytes_of,
           "Returns the .st image of this tokenizer, with its current settings.\n\n"
           "    >>> image = t5.to_st_bytes()\n"
           "    >>> snaptok.Tokenizer.from_buffer(image).encode_ids(\"Hello world\")\n"
           "    [151, 88, 21, 887, 2]")
      .def(
          "save_st",
          [](const snaptok::Pipeline& t, const std::filesystem::path& path) {
            nb::gil_scoped_release release;
            t.save_st(path);
          },
          "path"_a,
          "Writes the .st image to path atomically (a temporary file, then a rename).\n\n"
          "    >>> t5.save_st(f\"{tmp}/t5.st\")\n"
          "    >>> snaptok.Tokenizer.from_file(f\"{tmp}/t5.st\").encode_ids(\"Hello world\")\n"
          "    [151, 88, 21, 887, 2]")
      .def("__getstate__", &st_bytes_of)
      .def("__setstate__",
           [](snaptok::Pipeline& t, nb::bytes image) {
             new (&t) snaptok::Pipeline(snaptok::Pipeline::from_st_buffer(
                 std::as_bytes(std::span(static_cast<const char*>(image.data()), image.size()))));
           })
      .def("__copy__", [](const snaptok::Pipeline& t) { return snaptok::Pipeline(t); })
      .def("__deepcopy__",
           [](const snaptok::Pipeline& t, nb::handle) { return snaptok::Pipeline(t); }, "memo"_a)
      .def(
          "encode",
          [](const snaptok::Pipeline& t, nb::handle text, nb::handle pair, bool is_pretokenized,
             bool add_special_tokens) {
            if (is_pretokenized) {
              const WordList a(text, "text");
              std::optional<WordList> b;
              if (!pair.is_none()) b.emplace(pair, "pair");
              nb::gil_scoped_release release;
              return t.encode_words(a.words, b ? std::optional(std::span<const std::string_view>(b->words))
                                               : std::nullopt,
                                    add_special_tokens);
            }
            const std::string_view a = text_of(text, "text");
            std::optional<std::string_view> b;
            if (!pair.is_none()) b = text_of(pair, "pair");
            GilReleaseFor release(a.size() + (b ? b->size() : 0));
            return t.encode_full(a, b, add_special_tokens);
          },
          "text"_a, "pair"_a = nb::none(), "is_pretokenized"_a = false, "add_special_tokens"_a = true,
          "Encodes one text (or a pair) into an Encoding; with is_pretokenized, each is a list\n"
          "of words, encoded one by one (HF's word ids and per-word offsets).\n\n"
          "    >>> tok.encode(\"Hello world\").ids\n"
          "    [15496, 995]\n"
          "    >>> t5.encode(\"Hello world\", \"Hi\").tokens\n"
          "    ['▁He', 'll', 'o', '▁world', '</s>', '▁', 'H', 'i', '</s>']\n"
          "    >>> tok.encode([\"Hello\", \" world\"], is_pretokenized=True).word_ids\n"
          "    [0, 1]")
      .def(
          "encode_ids",
          [](const snaptok::Pipeline& t, nb::handle text, bool add_special_tokens) {
            const std::string_view a = text_of(text, "text");
            IdsBuffer ids;
            {
              GilReleaseFor release(a.size());
              t.encode_into(a, add_special_tokens, ids.get(), /*utf8_checked=*/PyUnicode_Check(text.ptr()));
            }
            return ids.to_list();
          },
          "text"_a, "add_special_tokens"_a = true,
          "Returns only the ids of one text (fastest).\n\n"
          "    >>> t5.encode_ids(\"Hello world\")\n"
          "    [151, 88, 21, 887, 2]")
      .def(
          "encode_batch",
          [](const snaptok::Pipeline& t, nb::handle texts, bool is_pretokenized, bool add_special_tokens,
             nb::handle threads) { return encode_batch(t, texts, is_pretokenized, add_special_tokens, threads); },
          "input"_a, "is_pretokenized"_a = false, "add_special_tokens"_a = true, "num_threads"_a = 0,
          "Encodes many texts or (text, pair) tuples (any iterable), in parallel, into a list of\n"
          "Encoding, padded together when padding is enabled (as HF encode_batch); with\n"
          "is_pretokenized, each item is a list of words or a pair of such lists (one thread).\n\n"
          "    >>> [e.ids for e in tok.encode_batch([\"Hello world\", \"Hi\"])]\n"
          "    [[15496, 995], [17250]]\n"
          "    >>> t5.encode_batch([(\"Hello\", \"world\")])[0].tokens\n"
          "    ['▁He', 'll', 'o', '</s>', '▁world', '</s>']")
      .def(
          "post_process",
          [](const snaptok::Pipeline& t, const snaptok::Encoding& encoding, std::optional<snaptok::Encoding> pair,
             bool add_special_tokens) { return t.post_process(encoding, std::move(pair), add_special_tokens); },
          "encoding"_a, "pair"_a = nb::none(), "add_special_tokens"_a = true,
          "Applies truncation, the post-processor and padding to encodings made without them\n"
          "(e.g. encode(..., add_special_tokens=False)), as HF post_process does.\n\n"
          "    >>> e = t5.encode(\"Hello world\", add_special_tokens=False)\n"
          "    >>> t5.post_process(e).tokens\n"
          "    ['▁He', 'll', 'o', '▁world', '</s>']")
      .def(
          "encode_batch_fast",
          [](const snaptok::Pipeline& t, nb::handle texts, bool is_pretokenized, bool add_special_tokens,
             nb::handle threads) {
            return encode_batch(t, texts, is_pretokenized, add_special_tokens, threads, /*fast=*/true);
          },
          "input"_a, "is_pretokenized"_a = false, "add_special_tokens"_a = true, "num_threads"_a = 0,
          "encode_batch without alignments, as HF encode_batch_fast: offsets (0, 0), no word ids, and\n"
          "empty token strings but for the post-processor's and the padding's tokens.\n\n"
          "    >>> e = t5.encode_batch_fast([\"Hello world\"])[0]\n"
          "    >>> (e.ids, e.tokens, e.offsets[0])\n"
          "    ([151, 88, 21, 887, 2], ['', '', '', '', '</s>'], (0, 0))")
      .def(
          "encode_to_numpy",
          [](const snaptok::Pipeline& t, nb::handle texts, bool add_special_tokens,
             nb::handle threads) {
            const unsigned num_threads = threads_arg(threads);
            TextBatch batch(texts);
            std::vector<std::uint32_t> ids;
            std::vector<std::int64_t> offsets;
            {
              nb::gil_scoped_release release;
              t.encode_batch_flat(batch.views, add_special_tokens, num_threads, ids, offsets,
                                  /*utf8_checked=*/batch.all_str);
            }
            return nb::make_tuple(to_numpy(std::move(ids)), to_numpy(std::move(offsets)));
          },
          "texts"_a, "add_special_tokens"_a = true, "num_threads"_a = 0,
          "Encodes many texts into (ids uint32, offsets int64 of len(texts)+1), zero-copy;\n"
          "row i is ids[offsets[i]:offsets[i+1]].\n\n"
          "    >>> ids, offsets = tok.encode_to_numpy([\"Hello world\", \"Hi\"])\n"
          "    >>> ids\n"
          "    array([15496,   995, 17250], dtype=uint32)\n"
          "    >>> offsets.tolist()\n"
          "    [0, 2, 3]",
          nb::sig("def encode_to_numpy(self, texts: typing.Iterable[str | bytes], add_special_tokens: bool = True, "
                  "num_threads: int = 0) -> tuple[numpy.typing.NDArray[numpy.uint32], "
                  "numpy.typing.NDArray[numpy.int64]]"))
      .def(
          "document_encoder",
          [](const snaptok::Pipeline& t, bool add_special_tokens, nb::handle num_threads,
             nb::handle part_bytes) {
            return new PyDocumentEncoder(t, add_special_tokens, threads_arg(num_threads),
                                         static_cast<std::size_t>(int_arg(part_bytes, "part_bytes", kMaxSize)));
          },
          "add_special_tokens"_a = true, "num_threads"_a = 0,
          "part_bytes"_a = snaptok::DocumentEncoder::kDefaultPartBytes, nb::keep_alive<0, 1>(),
          "Returns a DocumentEncoder for one document fed in pieces (a large file, a stream)\n"
          "under the current settings. Once part_bytes are held back, it encodes the text\n"
          "before the last exact cut point, on num_threads threads.\n\n"
          "    >>> d = tok.document_encoder()\n"
          "    >>> np.concatenate([d.feed(\"Hello wor\"), d.feed(\"ld\"), d.finish()])\n"
          "    array([15496,   995], dtype=uint32)")
      .def_prop_ro(
          "fused_path", [](const snaptok::Pipeline& t) { return std::string(t.fused_path()); },
          "The fused ids-only path chosen at load: 'byte-level BPE', 'SentencePiece BPE',\n"
          "'whitespace words', or 'none' (the general stages). Ids are the same either way.\n\n"
          "    >>> tok.fused_path\n"
          "    'byte-level BPE'")
      .def_prop_ro(
          "can_split_documents", [](const snaptok::Pipeline& t) { return t.can_split_documents(); },
          "True when one document can be cut into parts encoded apart (in parallel, or\n"
          "streamed by document_encoder) with the ids of the whole: a fused path that\n"
          "proves its cuts (byte-level BPE on a known split pattern with no normalizer\n"
          "but NFC/NFD/NFKC/NFKD/Lowercase; SentencePiece BPE; whitespace words), no\n"
          "added token a cut could change, no truncation or padding. When False, a\n"
          "DocumentEncoder holds the whole document until finish().\n\n"
          "    >>> (tok.can_split_documents, t5.can_split_documents)\n"
          "    (True, True)")
      .def(
          "decode",
          [](const snaptok::Pipeline& t, nb::handle ids, bool skip_special_tokens) {
            return t.decode(ids_arg(ids, "ids"), skip_special_tokens);
          },
          "ids"_a, "skip_special_tokens"_a = true,
          "Decodes ids back to text.\n\n"
          "    >>> tok.decode([15496, 995])\n"
          "    'Hello world'\n"
          "    >>> t5.decode([151, 88, 21, 887, 2], skip_special_tokens=False)\n"
          "    'Hello world</s>'")
      .def(
          "decode_batch",
          [](const snaptok::Pipeline& t, nb::handle sequences, bool skip_special_tokens) {
            std::vector<std::vector<std::uint32_t>> batch;
            for (nb::handle seq : nb::borrow<nb::iterable>(sequences)) {
              batch.push_back(ids_arg(seq, "sequences[" + std::to_string(batch.size()) + "]"));
            }
            nb::gil_scoped_release release;
            std::vector<std::string> out;
            out.reserve(batch.size());
            for (const auto& ids : batch) out.push_back(t.decode(ids, skip_special_tokens));
            return out;
          },
          "sequences"_a, "skip_special_tokens"_a = true,
          "Decodes many id lists.\n\n"
          "    >>> tok.decode_batch([[15496], [995]])\n"
          "    ['Hello', ' world']")
      .def(
          "enable_truncation",
          [](snaptok::Pipeline& t, nb::handle max_length, nb::handle stride,
             std::string_view strategy, std::string_view direction) {
            snaptok::TruncationParams p;
            p.max_length = static_cast<std::size_t>(int_arg(max_length, "max_length", kMaxSize));
            p.stride = static_cast<std::size_t>(int_arg(stride, "stride", kMaxSize));
            p.strategy = strategy_of(strategy);
            p.direction = is_left(direction) ? snaptok::TruncationDirection::left
                                             : snaptok::TruncationDirection::right;
            t.set_truncation(p);
          },
          "max_length"_a, "stride"_a = 0, "strategy"_a = "longest_first", "direction"_a = "right",
          "Truncates every encoding to max_length tokens (special tokens included); the rest\n"
          "goes to Encoding.overflowing in windows overlapping by stride.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_truncation(2)\n"
          "    >>> e = t.encode(\"Hello world, again\")\n"
          "    >>> (e.ids, e.overflowing[0].ids)\n"
          "    ([15496, 995], [11, 757])")
      .def(
          "no_truncation", [](snaptok::Pipeline& t) { t.set_truncation(std::nullopt); },
          "Disables truncation.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_truncation(2)\n"
          "    >>> t.no_truncation()\n"
          "    >>> t.encode(\"Hello world, again\").ids\n"
          "    [15496, 995, 11, 757]")
      .def_prop_ro(
          "truncation",
          [](const snaptok::Pipeline& t) -> nb::object {
            const auto& p = t.truncation();
            if (!p) return nb::none();
            nb::dict d;
            d["max_length"] = p->max_length;
            d["stride"] = p->stride;
            d["strategy"] = snaptok::to_string(p->strategy);
            d["direction"] = snaptok::to_string(p->direction);
            return d;
          },
          nb::for_getter(nb::sig("def truncation(self, /) -> dict[str, typing.Any] | None")),
          "The truncation parameters as a dict, or None.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_truncation(2)\n"
          "    >>> t.truncation\n"
          "    {'max_length': 2, 'stride': 0, 'strategy': 'longest_first', 'direction': 'right'}")
      .def(
          "enable_padding",
          [](snaptok::Pipeline& t, std::string_view direction, nb::handle pad_id,
             nb::handle pad_type_id, std::string pad_token, nb::handle length,
             nb::handle pad_to_multiple_of) {
            snaptok::PaddingParams p;
            p.direction = is_left(direction) ? snaptok::PaddingDirection::left
                                             : snaptok::PaddingDirection::right;
            p.pad_id = static_cast<std::uint32_t>(int_arg(pad_id, "pad_id", kMaxId));
            p.pad_type_id = static_cast<std::uint32_t>(int_arg(pad_type_id, "pad_type_id", kMaxId));
            p.pad_token = std::move(pad_token);
            p.fixed_length = optional_size_arg(length, "length");
            p.pad_to_multiple_of = optional_size_arg(pad_to_multiple_of, "pad_to_multiple_of");
            t.set_padding(std::move(p));
          },
          "direction"_a = "right", "pad_id"_a = 0, "pad_type_id"_a = 0, "pad_token"_a = "[PAD]",
          "length"_a = nb::none(), "pad_to_multiple_of"_a = nb::none(),
          "Pads encodings to `length`, or to the longest of the batch when None, rounded up\n"
          "to pad_to_multiple_of.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_padding(pad_id=50256, pad_token=\"<|endoftext|>\")\n"
          "    >>> [e.ids for e in t.encode_batch([\"Hello world\", \"Hi\"])]\n"
          "    [[15496, 995], [17250, 50256]]")
      .def(
          "no_padding", [](snaptok::Pipeline& t) { t.set_padding(std::nullopt); },
          "Disables padding.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_padding(length=4)\n"
          "    >>> t.no_padding()\n"
          "    >>> t.encode(\"Hi\").ids\n"
          "    [17250]")
      .def_prop_ro(
          "padding",
          [](const snaptok::Pipeline& t) -> nb::object {
            const auto& p = t.padding();
            if (!p) return nb::none();
            nb::dict d;
            d["length"] = p->fixed_length ? nb::cast(*p->fixed_length) : nb::none();
            d["pad_to_multiple_of"] =
                p->pad_to_multiple_of ? nb::cast(*p->pad_to_multiple_of) : nb::none();
            d["pad_id"] = p->pad_id;
            d["pad_token"] = p->pad_token;
            d["pad_type_id"] = p->pad_type_id;
            d["direction"] = snaptok::to_string(p->direction);
            return d;
          },
          nb::for_getter(nb::sig("def padding(self, /) -> dict[str, typing.Any] | None")),
          "The padding parameters as a dict, or None.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> t.enable_padding(length=8)\n"
          "    >>> t.padding[\"length\"], t.padding[\"pad_token\"]\n"
          "    (8, '[PAD]')")
      .def(
          "num_special_tokens_to_add",
          [](const snaptok::Pipeline& t, bool is_pair) -> std::size_t {
            return t.post_processor() ? t.post_processor()->added_tokens(is_pair) : 0;
          },
          "is_pair"_a,
          "Number of special tokens the post-processor adds (HF).\n\n"
          "    >>> (t5.num_special_tokens_to_add(False), t5.num_special_tokens_to_add(True))\n"
          "    (1, 2)")
      .def("token_to_id", &snaptok::Pipeline::token_to_id, "token"_a,
           "Returns the id of `token` (an added token's or the model's), or None.\n\n"
           "    >>> tok.token_to_id(\"<|endoftext|>\")\n"
           "    50256")
      .def(
          "id_to_token",
          [](const snaptok::Pipeline& t, nb::handle id) {
            return t.id_to_token(static_cast<std::uint32_t>(int_arg(id, "id", kMaxId)));
          },
          "id"_a,
          "Returns the token of `id` (an added token's or the model's), or None.\n\n"
          "    >>> tok.id_to_token(50256)\n"
          "    '<|endoftext|>'")
      .def("get_vocab_size", &snaptok::Pipeline::vocab_size, "with_added_tokens"_a = true,
           "The vocabulary's size, with the added tokens unless with_added_tokens=False.\n\n"
           "    >>> tok.get_vocab_size()\n"
           "    50257")
      .def_prop_rw("encode_special_tokens", &snaptok::Pipeline::encode_special_tokens,
                   &snaptok::Pipeline::set_encode_special_tokens,
                   "When True, special tokens in the input are encoded as plain text.\n\n"
                   "    >>> t = snaptok.Tokenizer.from_file(path)\n"
                   "    >>> t.encode_special_tokens = True\n"
                   "    >>> t.encode(\"<|endoftext|>\").ids\n"
                   "    [27, 91, 437, 1659, 5239, 91, 29]")
      .def(
          "set_cache_budget",
          [](snaptok::Pipeline& t, nb::handle bytes) {
            t.set_cache_budget(static_cast<std::size_t>(int_arg(bytes, "bytes", kMaxSize)));
          },
          "bytes"_a,
           "Sets the byte budget that all threads' piece caches share (0 disables them);\n"
           "the caches start empty under the new budget.\n\n"
           "    >>> t = snaptok.Tokenizer.from_file(path)\n"
           "    >>> t.set_cache_budget(0)\n"
           "    >>> t.cache_stats()[\"bytes_budget\"]\n"
           "    0")
      .def(
          "cache_stats",
          [](const snaptok::Pipeline& t) {
            const auto s = t.cache_stats();
            nb::dict d;
            d["hits"] = s.hits;
            d["misses"] = s.misses;
            d["bytes_used"] = s.bytes_used;
            d["bytes_budget"] = s.bytes_total;
            return d;
          },
          "Piece-cache counters under the current budget: hits, misses, bytes_used (claimed\n"
          "by the threads' caches) and bytes_budget.\n\n"
          "    >>> t = snaptok.Tokenizer.from_file(path)\n"
          "    >>> _ = t.encode_ids(\"Hello world\"), t.encode_ids(\"Hello world\")\n"
          "    >>> {k: v for k, v in t.cache_stats().items() if k in (\"hits\", \"misses\")}\n"
          "    {'hits': 2, 'misses': 2}",
          nb::sig("def cache_stats(self) -> dict[str, int]"));

  // SIMD target (snaptok/simd/dispatch.hpp); SNAPTOK_SIMD caps it.
  m.def(
      "simd_target", [] { return std::string(snaptok::simd_target()); },
      "Returns the name of the SIMD target the kernels run on, e.g. 'AVX2' "
      "(capped by the SNAPTOK_SIMD environment variable: scalar, sse4, avx2 "
      "or avx3), or 'none (built without Highway)'.\n\n"
      "    >>> snaptok.simd_target()  # e.g. 'AVX2', 'AVX3', 'NEON'\n"
      "    '...'");
}
