// The Python DecodeStream class: text from ids given one at a time
// (snaptok::DecodeStream).
#pragma once

#include "results.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// Adds the DecodeStream class to `m`.
inline void bind_decode_stream(nb::module_& m) {
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
}

}  // namespace snaptok_python
