// Tokenizer.encode_to_arrow: ids as a pyarrow LargeListArray over the
// buffers encode_to_numpy returns (no copy), and texts read from a pyarrow
// string column in place: its UTF-8 data and offsets buffers, without a
// Python str per row. pyarrow is imported on the first call; without it the
// call raises ImportError naming the package.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "results.hpp"

namespace snaptok_python {

// Returns the pyarrow module, or raises ImportError naming the package.
inline nb::module_ import_pyarrow() {
  try {
    return nb::module_::import_("pyarrow");
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    throw nb::import_error("encode_to_arrow needs pyarrow (pip install pyarrow)");
  }
}

// A buffer-protocol view of a pyarrow.Buffer, released on destruction; the
// memory stays valid while the view is held (the GIL may be released).
class HeldBuffer {
 public:
  explicit HeldBuffer(nb::handle buffer) {
    if (PyObject_GetBuffer(buffer.ptr(), &view_, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  ~HeldBuffer() { PyBuffer_Release(&view_); }

  const unsigned char* data() const { return static_cast<const unsigned char*>(view_.buf); }
  std::size_t size() const { return static_cast<std::size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

// The rows of a pyarrow Array or ChunkedArray of string, large_string,
// binary or large_binary as views into its buffers, which are held. Raises
// TypeError for another type and ValueError naming the first null row.
struct ArrowTexts {
  std::vector<nb::object> keep;
  std::vector<std::unique_ptr<HeldBuffer>> buffers;
  std::vector<std::string_view> views;

  // Returns whether `texts` is a pyarrow Array or ChunkedArray.
  static bool accepts(nb::handle texts, const nb::module_& pa) {
    return nb::isinstance(texts, pa.attr("Array")) || nb::isinstance(texts, pa.attr("ChunkedArray"));
  }

  ArrowTexts(nb::handle texts, const nb::module_& pa) {
    const bool chunked = nb::isinstance(texts, pa.attr("ChunkedArray"));
    const nb::object types = pa.attr("types");
    const nb::object type = texts.attr("type");
    const bool large = nb::cast<bool>(types.attr("is_large_string")(type)) ||
                       nb::cast<bool>(types.attr("is_large_binary")(type));
    if (!large && !nb::cast<bool>(types.attr("is_string")(type)) && !nb::cast<bool>(types.attr("is_binary")(type))) {
      throw nb::type_error(("texts: expected a pyarrow array of string, large_string, binary or large_binary, "
                            "got " + nb::cast<std::string>(nb::str(type)))
                               .c_str());
    }
    views.reserve(nb::len(texts));
    if (chunked) {
      for (nb::handle chunk : texts.attr("chunks")) add_chunk(nb::borrow(chunk), large);
    } else {
      add_chunk(nb::borrow(texts), large);
    }
  }

 private:
  // Appends the views of one Array's rows (from its offset, for a slice).
  void add_chunk(nb::object chunk, bool large) {
    const std::size_t n = nb::len(chunk);
    const std::size_t first = nb::cast<std::size_t>(chunk.attr("offset"));
    const nb::list parts = nb::cast<nb::list>(chunk.attr("buffers")());  // validity, offsets, data
    if (n == 0) return;
    const HeldBuffer* validity = hold(parts[0]);
    const HeldBuffer* offsets = hold(parts[1]);
    const HeldBuffer* data = hold(parts[2]);
    const std::size_t width = large ? 8 : 4;
    if (!offsets || offsets->size() < (first + n + 1) * width) {
      throw nb::value_error("texts: a pyarrow array whose offsets buffer is shorter than its length");
    }
    const unsigned char* bytes = data ? data->data() : nullptr;
    const std::size_t limit = data ? data->size() : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t row = first + i;
      if (validity && !((validity->data()[row >> 3] >> (row & 7)) & 1)) {
        throw nb::value_error(("texts[" + std::to_string(views.size()) +
                               "] is null; encode_to_arrow takes a column without nulls (fill_null(\"\") or "
                               "drop_null() first)")
                                  .c_str());
      }
      const std::int64_t start = offset_at(offsets->data(), row, large);
      const std::int64_t end = offset_at(offsets->data(), row + 1, large);
      if (start < 0 || end < start || static_cast<std::size_t>(end) > limit) {
        throw nb::value_error(("texts[" + std::to_string(views.size()) + "]: offsets outside the data buffer")
                                  .c_str());
      }
      views.emplace_back(reinterpret_cast<const char*>(bytes) + start, static_cast<std::size_t>(end - start));
    }
    keep.push_back(std::move(chunk));
  }

  const HeldBuffer* hold(nb::handle buffer) {
    if (buffer.is_none()) return nullptr;
    buffers.push_back(std::make_unique<HeldBuffer>(buffer));
    keep.push_back(nb::borrow(buffer));
    return buffers.back().get();
  }

  static std::int64_t offset_at(const unsigned char* p, std::size_t i, bool large) {
    if (large) {
      std::int64_t v;
      std::memcpy(&v, p + i * 8, 8);
      return v;
    }
    std::int32_t v;
    std::memcpy(&v, p + i * 4, 4);
    return v;
  }
};

// Tokenizer.encode_to_arrow.
inline void bind_tokenizer_arrow(nb::class_<snaptok::Pipeline>& cls) {
  cls.def(
      "encode_to_arrow",
      [](const snaptok::Pipeline& t, nb::handle texts, bool add_special_tokens, nb::handle threads) {
        const unsigned num_threads = threads_arg(threads);
        const nb::module_ pa = import_pyarrow();
        std::vector<std::uint32_t> ids;
        std::vector<std::int64_t> offsets;
        if (ArrowTexts::accepts(texts, pa)) {
          const ArrowTexts batch(texts, pa);
          std::size_t bytes = 0;
          for (const std::string_view v : batch.views) bytes += v.size();
          ids = IdBufferPool::instance().take(snaptok::runtime::ids_room_for(bytes));
          nb::gil_scoped_release release;
          t.encode_batch_flat(batch.views, add_special_tokens, num_threads, ids, offsets);
        } else {
          encode_texts_flat(t, texts, add_special_tokens, num_threads, ids, offsets);
        }
        // pyarrow wraps a NumPy array's memory without a copy; the arrays keep it alive.
        nb::object values = pa.attr("array")(to_numpy(std::move(ids)), "type"_a = pa.attr("uint32")());
        nb::object starts = pa.attr("array")(to_numpy(std::move(offsets)), "type"_a = pa.attr("int64")());
        return pa.attr("LargeListArray").attr("from_arrays")(starts, values);
      },
      "texts"_a, "add_special_tokens"_a = true, "num_threads"_a = 0,
      "Encodes many texts into a pyarrow LargeListArray of uint32 ids, one row per text,\n"
      "built on encode_to_numpy's arrays without a copy. texts is any iterable of str or\n"
      "bytes, or a pyarrow Array or ChunkedArray of string, large_string, binary or\n"
      "large_binary (a Parquet or Arrow column), whose UTF-8 buffer is read in place. Needs\n"
      "pyarrow; a null row is a ValueError naming it.\n\n"
      "    >>> import pyarrow as pa\n"
      "    >>> tok.encode_to_arrow(pa.array([\"Hello world\", \"Hi\"])).to_pylist()\n"
      "    [[15496, 995], [17250]]",
      nb::sig("def encode_to_arrow(self, texts: typing.Iterable[str | bytes] | pyarrow.Array | "
              "pyarrow.ChunkedArray, add_special_tokens: bool = True, num_threads: int = 0) -> "
              "pyarrow.LargeListArray"));
}

}  // namespace snaptok_python
