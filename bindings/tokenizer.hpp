// The Python Tokenizer class (snaptok::Pipeline): loading and saving,
// encoding (one text, batches, NumPy, documents in pieces), decoding,
// truncation and padding, and the piece cache.
#pragma once

#include "added_token.hpp"
#include "arrow.hpp"
#include "components.hpp"
#include "document_encoder.hpp"
#include "results.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// HF encode_batch: texts, (text, pair) tuples, or with is_pretokenized
// lists of words (or pairs of them), into Encodings padded together.
// `fast`: HF encode_batch_fast (Pipeline::encode_batch_full's `fast`).
inline std::vector<snaptok::Encoding> encode_batch(const snaptok::Pipeline& t, nb::handle texts,
                                                   bool is_pretokenized, bool add_special_tokens,
                                                   nb::handle threads, bool fast = false) {
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


// Tokenizer: loading and saving, the vocabulary and added tokens, copies
// and pickling.
inline void bind_tokenizer_loading(nb::class_<snaptok::Pipeline>& cls) {
  cls
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
           [](const snaptok::Pipeline& t, nb::handle) { return snaptok::Pipeline(t); }, "memo"_a);
}

// Tokenizer.encode: one text, a pair (as `pair`, or HF 1.0's (text, pair)
// tuple or list as `text`), or pre-tokenized word lists.
inline snaptok::Encoding encode_one(const snaptok::Pipeline& t, nb::handle text, nb::handle pair,
                                    bool is_pretokenized, bool add_special_tokens) {
  if (is_pretokenized) {
    const WordList a(text, "text");
    std::optional<WordList> b;
    if (!pair.is_none()) b.emplace(pair, "pair");
    nb::gil_scoped_release release;
    return t.encode_words(a.words, b ? std::optional(std::span<const std::string_view>(b->words)) : std::nullopt,
                          add_special_tokens);
  }
  if (pair.is_none() && (PyTuple_Check(text.ptr()) || PyList_Check(text.ptr())) && nb::len(text) == 2) {
    return encode_one(t, text[0], text[1], false, add_special_tokens);
  }
  const std::string_view a = text_of(text, "text");
  std::optional<std::string_view> b;
  if (!pair.is_none()) b = text_of(pair, "pair");
  GilReleaseFor release(a.size() + (b ? b->size() : 0));
  return t.encode_full(a, b, add_special_tokens);
}

// Tokenizer: encode, encode_ids, encode_batch(_fast), post_process,
// encode_to_numpy and document_encoder.
inline void bind_tokenizer_encoding(nb::class_<snaptok::Pipeline>& cls) {
  cls
      .def("encode", &encode_one, "text"_a, "pair"_a = nb::none(), "is_pretokenized"_a = false,
           "add_special_tokens"_a = true,
          "Encodes one text (or a pair) into an Encoding; with is_pretokenized, each is a list\n"
          "of words, encoded one by one (HF's word ids and per-word offsets). A (text, pair)\n"
          "tuple or list as text is a pair too (HF tokenizers 1.0's form).\n\n"
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
            std::vector<std::uint32_t> ids;
            std::vector<std::int64_t> offsets;
            encode_texts_flat(t, texts, add_special_tokens, threads_arg(threads), ids, offsets);
            return nb::make_tuple(to_numpy(std::move(ids)), to_numpy(std::move(offsets)));
          },
          "texts"_a, "add_special_tokens"_a = true, "num_threads"_a = 0,
          "Encodes many texts into (ids uint32, offsets int64 of len(texts)+1), zero-copy;\n"
          "row i is ids[offsets[i]:offsets[i+1]]. A long non-ASCII str is read as CPython\n"
          "stores it, part by part, without the UTF-8 copy CPython would keep with it.\n\n"
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
          "    (True, True)");
}

// Tokenizer: decode, truncation and padding, vocabulary lookups,
// encode_special_tokens and the piece cache.
inline void bind_tokenizer_decoding(nb::class_<snaptok::Pipeline>& cls) {
  cls
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
          "decode_tokens",
          [](const snaptok::Pipeline& t, nb::handle ids, bool skip_special_tokens) {
            if (nb::isinstance<snaptok::Encoding>(ids)) {
              return t.tokens_of(nb::cast<const snaptok::Encoding&>(ids).ids, skip_special_tokens);
            }
            return t.tokens_of(ids_arg(ids, "ids"), skip_special_tokens);
          },
          "ids"_a, "skip_special_tokens"_a = false,
          "Returns the token of each id (an Encoding, a NumPy array or any sequence of ints),\n"
          "without the decoder; ids no token has are left out (HF tokenizers 1.0).\n\n"
          "    >>> t5.decode_tokens([151, 88, 21, 887, 2])\n"
          "    ['▁He', 'll', 'o', '▁world', '</s>']\n"
          "    >>> t5.decode_tokens(t5.encode(\"Hello\"), skip_special_tokens=True)\n"
          "    ['▁He', 'll', 'o']")
      .def(
          "tokenize",
          [](const snaptok::Pipeline& t, nb::handle input, bool add_special_tokens) {
            return encode_one(t, input, nb::none(), false, add_special_tokens).tokens;
          },
          "input"_a, "add_special_tokens"_a = true,
          "Returns the tokens of a text, or of a (text, pair) tuple or list: encode(input).tokens\n"
          "(HF tokenizers 1.0).\n\n"
          "    >>> t5.tokenize(\"Hello world\")\n"
          "    ['▁He', 'll', 'o', '▁world', '</s>']\n"
          "    >>> t5.tokenize((\"Hi\", \"you\"), add_special_tokens=False)\n"
          "    ['▁', 'H', 'i', '▁you']")
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
}

// Adds the Tokenizer class (snaptok::Pipeline) to `m`, with its
// components' properties.
inline void bind_tokenizer(nb::module_& m) {
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
  bind_tokenizer_loading(tokenizer_class);
  bind_tokenizer_encoding(tokenizer_class);
  bind_tokenizer_arrow(tokenizer_class);
  bind_tokenizer_decoding(tokenizer_class);
}

}  // namespace snaptok_python
