// The Python Encoding class (snaptok::Encoding): what encode returns, with
// HF's fields, merging, padding and truncation, and pickling.
#pragma once

#include "results.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// Adds the Encoding class to `m`.
inline void bind_encoding(nb::module_& m) {
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
      .def_prop_ro("ids_array", [](const snaptok::Encoding& e) { return to_numpy(std::vector(e.ids)); },
                   nb::rv_policy::move, "A copy of ids as a uint32 NumPy array (HF tokenizers 1.0).\n\n"
                   "    >>> tok.encode(\"Hello world\").ids_array\n"
                   "    array([15496,   995], dtype=uint32)")
      .def_prop_ro("type_ids_array", [](const snaptok::Encoding& e) { return to_numpy(std::vector(e.type_ids)); },
                   nb::rv_policy::move, "A copy of type_ids as a uint32 NumPy array (HF tokenizers 1.0).")
      .def_prop_ro("attention_mask_array",
                   [](const snaptok::Encoding& e) { return to_numpy(std::vector(e.attention_mask)); },
                   nb::rv_policy::move, "A copy of attention_mask as a uint32 NumPy array (HF tokenizers 1.0).")
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
}

}  // namespace snaptok_python
