// The engine: snaptok::Pipeline, a loaded tokenizer with every stage of the
// tokenizer.json pipeline, header-only. Applications use snaptok::Tokenizer
// (tokenizer.hpp), a light handle over a Pipeline; the Python module, the
// tests and code that needs the stages themselves use Pipeline directly.
//
//   #include <snaptok/pipeline.hpp>
//   auto p = snaptok::Pipeline::from_file("tokenizer.json");
//   std::vector<uint32_t> ids = p.encode("Hello world");   // {15496, 995}
//
// Output is bit-identical to Hugging Face `tokenizers` for the same
// tokenizer.json. Every error is a snaptok::Error naming what failed and where.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/added_tokens.hpp"
#include "snaptok/byte_ranks.hpp"
#include "snaptok/decoders/factory.hpp"
#include "snaptok/detail/files.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/error.hpp"
#include "snaptok/general_stages.hpp"
#include "snaptok/ids_route.hpp"
#include "snaptok/models/factory.hpp"
#include "snaptok/normalizers/factory.hpp"
#include "snaptok/pre_tokenizers/factory.hpp"
#include "snaptok/processors/factory.hpp"
#include "snaptok/runtime/batch.hpp"
#include "snaptok/runtime/settings.hpp"
#include "snaptok/runtime/workspace.hpp"
#include "snaptok/scanners/cut_points.hpp"
#include "snaptok/st/format.hpp"
#include "snaptok/st/image.hpp"
#include "snaptok/st/pipeline.hpp"
#include "snaptok/st/writer.hpp"
#include "snaptok/truncation.hpp"

namespace snaptok {

/// A loaded tokenizer: the whole tokenizer.json pipeline.
///
/// Copies share the immutable tables and stages; each copy has its own
/// settings (a setter on one does not change the other).
///
/// Thread safety: every const method may run on any number of threads at
/// once. The setters (set_truncation, set_padding, set_encode_special_tokens,
/// set_cache_budget) may run concurrently with them: each publishes a new
/// settings snapshot atomically, and a call that already started keeps the
/// snapshot it began with. Each encoding thread keeps its own piece cache;
/// all of them together stay within the cache budget.
class Pipeline {
 public:
  /// Loads a tokenizer.json or a .st file (told apart by the .st magic).
  static Pipeline from_file(const std::filesystem::path& path) {
    detail::require_regular_file(path);
    if (detail::starts_with_bytes(path, st::kMagic)) return from_st_image(st::Image::map_file(path));
    return from_json_file(path, detail::read_file(path));
  }

  /// Loads a tokenizer.json through a .st sidecar (`st_path`, by default
  /// the JSON's path plus ".st"): when the sidecar was built from JSON of
  /// the same checksum, it is mapped; else the JSON is loaded and the
  /// sidecar (re)written atomically. A sidecar that cannot be written (a
  /// read-only folder) leaves the tokenizer loaded from JSON.
  static Pipeline from_file_cached(const std::filesystem::path& json_path,
                                    std::filesystem::path st_path = {}) {
    if (st_path.empty()) st_path = std::filesystem::path(json_path.string() + ".st");
    const std::string data = detail::read_file(json_path);
    const std::uint64_t hash = st::checksum(std::as_bytes(std::span(data)));
    std::error_code ec;
    if (std::filesystem::exists(st_path, ec)) {
      try {
        auto image = st::Image::map_file(st_path);
        if (image->source_hash() == hash) return from_st_image(std::move(image));
      } catch (const Error&) {  // stale, corrupt or unreadable: rebuilt below
      }
    }
    Pipeline tok = from_json_file(json_path, data);
    try {
      tok.save_st(st_path);
    } catch (const Error&) {  // the sidecar is a cache: loading still succeeded
    }
    return tok;
  }

  /// Loads a tokenizer from the text of a tokenizer.json.
  static Pipeline from_json(std::string_view json_text) {
    Pipeline tok = from_json_with_model(json_text, nullptr);
    tok.source_hash_ = st::checksum(std::as_bytes(std::span(json_text.data(), json_text.size())));
    return tok;
  }

  /// Builds tiktoken's encode_ordinary for `ranks` (token bytes, rank = id):
  /// `pattern` splits (no special tokens; byte_ranks.hpp), BpeModel::
  /// from_byte_ranks merges, e.g. from_byte_ranks(scanners::kO200kPattern, ranks).
  /// The pattern means what it means to Oniguruma: for cl100k pass
  /// scanners::kCl100kPattern, which has tiktoken's matches for its own
  /// spelling (whose \p{N}{1,3}+ Oniguruma reads as whole digit runs). The
  /// .st image keeps the ranks exactly.
  static Pipeline from_byte_ranks(std::string_view pattern,
                                  std::span<const std::pair<std::string, std::uint32_t>> ranks) {
    return from_json_with_model(detail::byte_ranks_pipeline_json(pattern),
                                BpeModel::from_byte_ranks(ranks));
  }

  /// Loads a tokenizer from the bytes of a .st file (copied; see to_st_bytes).
  static Pipeline from_st_buffer(std::span<const std::byte> bytes) {
    return from_st_image(st::Image::copy_of(bytes));
  }

  /// Returns the .st image of this tokenizer with its current settings
  /// (truncation, padding, special-token switch, cache budget). The same
  /// tokenizer gives the same bytes, whether it was loaded from JSON or .st.
  std::string to_st_bytes() const {
    st::Writer out;
    model_->save_tables(out);
    const auto settings = settings_.load();
    const std::string pipeline =
        pipeline_json_.text(model_->type_name(), settings->added_tokens->to_json(), *settings);
    out.add_text(st::SectionType::pipeline, pipeline);
    return out.bytes(source_hash_);
  }

  /// Returns the tokenizer as tokenizer.json text (minified; HF to_str):
  /// the pipeline as loaded, the current truncation and padding, the
  /// model's tables. HF and snaptok load it to the same tokenizer.
  std::string to_json() const {
    const auto settings = settings_.load();
    return pipeline_json_.tokenizer_json(model_->type_name(), model_->tables_json(),
                                         settings->added_tokens->to_json(), *settings);
  }

  /// Writes to_st_bytes() to `path` atomically (a temporary file, then a rename).
  void save_st(const std::filesystem::path& path) const { st::write_atomically(path, to_st_bytes()); }

  /// Returns the ids of `text` (UTF-8; invalid UTF-8 throws, naming the byte).
  std::vector<std::uint32_t> encode(std::string_view text, bool add_special_tokens = true) const {
    std::vector<std::uint32_t> ids;
    ids.reserve(text.size() / 4 + 8);  // about one id per 4 bytes of text: few regrowths
    encode_into(text, add_special_tokens, ids);
    return ids;
  }

  /// Appends the ids of `text` to `ids`. `utf8_checked`: `text` is known
  /// to be valid UTF-8 (a Python str's), so the check is skipped.
  void encode_into(std::string_view text, bool add_special_tokens,
                   std::vector<std::uint32_t>& ids, bool utf8_checked = false) const {
    const auto settings = settings_.load();
    runtime::Workspace& ws = runtime::Workspace::current();
    ids_.encode_ids(*settings, ws, text, add_special_tokens, ids, utf8_checked);
    ws.flush_counts();
  }

  /// Returns the full Encoding of `text` (and of `pair` when given): ids,
  /// type ids, tokens, char offsets, masks, word ids, overflowing.
  Encoding encode_full(std::string_view text, bool add_special_tokens = true) const {
    return encode_full(text, std::nullopt, add_special_tokens);
  }
  Encoding encode_full(std::string_view text, std::optional<std::string_view> pair,
                       bool add_special_tokens) const {
    runtime::Workspace& ws = runtime::Workspace::current();
    Encoding out = ids_.encode_full(*settings_.load(), ws, text, pair, add_special_tokens);
    ws.flush_counts();
    return out;
  }

  // The stages one at a time (HF's component objects: tokenizer.normalizer,
  // .pre_tokenizer, .post_processor, .decoder).

  /// Returns the JSON of one stage as loaded: "normalizer",
  /// "pre_tokenizer", "post_processor" or "decoder" ("null" when there is
  /// none); for "model", its settings without the vocabulary and merges.
  std::string component_json(std::string_view stage) const {
    return stage == "model" ? pipeline_json_.model_json(model_->type_name()) : pipeline_json_.member(stage);
  }

  /// Returns `text` after the normalizer alone (HF normalize_str; `text`
  /// itself without a normalizer).
  std::string normalize_str(std::string_view text) const {
    detail::require_utf8(text, "text");
    NormalizedString ns(text, 0, text, /*track_offsets=*/false);
    if (normalizer_) normalizer_->normalize(ns);
    return ns.get();
  }

  /// Returns the pieces of `text` after the pre-tokenizer alone (HF
  /// pre_tokenize_str), each with its char offsets in `text`.
  std::vector<std::pair<std::string, Offsets>> pre_tokenize_str(std::string_view text) const {
    detail::require_utf8(text, "text");
    PreTokenizedString pts(text, /*track_offsets=*/true);
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pts);
    // (A split's bounds lie on char boundaries of `text`.)
    const std::vector<std::uint32_t> char_of = detail::char_index_of_bytes(text);
    std::vector<std::pair<std::string, Offsets>> out;
    for (const Split& s : pts.splits()) {
      const Offsets bytes = s.normalized.offsets_original();
      out.emplace_back(s.normalized.get(), Offsets{char_of[bytes.start], char_of[bytes.end]});
    }
    return out;
  }

  /// Returns the decoder's text of `tokens` (HF decoder.decode; the tokens
  /// joined by spaces without a decoder).
  std::string decode_tokens(std::vector<std::string> tokens) const {
    if (decoder_) return snaptok::decode_tokens(*decoder_, std::move(tokens));
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i) out += ' ';
      out += tokens[i];
    }
    return out;
  }

  /// Returns how many ids the post-processor adds to one sequence, or to a
  /// pair (HF num_special_tokens_to_add; 0 without one).
  std::size_t num_special_tokens_to_add(bool is_pair) const {
    return post_processor_ ? post_processor_->added_tokens(is_pair) : 0;
  }

  /// Applies the last stages to encodings made without them (HF
  /// post_process): truncation, the post-processor (when
  /// `add_special_tokens`), padding, under the current settings.
  Encoding post_process(Encoding encoding, std::optional<Encoding> pair, bool add_special_tokens) const {
    return general().post_process(*settings_.load(), std::move(encoding), std::move(pair), add_special_tokens);
  }

  /// Returns the full Encoding of pre-tokenized input (HF is_pretokenized):
  /// each of `words` (and of `pair`) runs through every stage on its own;
  /// its tokens take the word's index, and offsets within the word.
  Encoding encode_words(std::span<const std::string_view> words,
                        std::optional<std::span<const std::string_view>> pair,
                        bool add_special_tokens) const {
    return general().encode_words(*settings_.load(), words, pair, add_special_tokens);
  }

  /// One pre-tokenized input of encode_batch_words: words, and maybe a pair.
  struct WordsInput {
    std::span<const std::string_view> words;
    std::optional<std::span<const std::string_view>> pair;
  };

  /// encode_words for each input, under one settings snapshot, padded
  /// together when padding is enabled (HF encode_batch, is_pretokenized).
  /// `fast`: as in encode_batch_full.
  std::vector<Encoding> encode_batch_words(std::span<const WordsInput> inputs, bool add_special_tokens,
                                           bool fast = false) const {
    const auto settings = settings_.load();
    std::vector<Encoding> out;
    out.reserve(inputs.size());
    for (const WordsInput& in : inputs) {
      out.push_back(general().encode_words(*settings, in.words, in.pair, add_special_tokens, fast ? 0 : 1));
      if (fast) out.back().drop_alignments();
    }
    if (settings->padding) pad_encodings(out, *settings->padding);
    return out;
  }

  /// Encodes every text (in parallel when worth it) into one flat id array
  /// with row offsets: row i is ids[offsets[i] .. offsets[i+1]).
  /// num_threads == 0 uses $SNAPTOK_NUM_THREADS, else every core this
  /// process may run on. The work is split by bytes, and a text much larger
  /// than its share is cut at cut points across threads when
  /// can_split_documents() (the ids are the same as encoding it whole).
  /// `utf8_checked`: every text is known to be valid UTF-8 (the UTF-8 of
  /// a Python str), so the check is skipped.
  void encode_batch_flat(std::span<const std::string_view> texts, bool add_special_tokens,
                         unsigned num_threads, std::vector<std::uint32_t>& ids,
                         std::vector<std::int64_t>& offsets, bool utf8_checked = false) const {
    encode_batch_flat(texts, {}, add_special_tokens, num_threads, ids, offsets, utf8_checked);
  }

  /// The same where some texts are held as code points (a long Python
  /// str, as CPython stores it): text i is chars[i] when that is set, else
  /// texts[i]. Each part of such a text is converted to UTF-8 by the
  /// thread that encodes it, so the whole text is never copied; a char
  /// UTF-8 cannot encode (a lone surrogate) throws detail::UnencodableChar.
  void encode_batch_flat(std::span<const std::string_view> texts, std::span<const detail::CodePoints> chars,
                         bool add_special_tokens, unsigned num_threads, std::vector<std::uint32_t>& ids,
                         std::vector<std::int64_t>& offsets, bool utf8_checked = false) const {
    const auto settings = settings_.load();
    offsets.assign(texts.size() + 1, 0);
    ids.clear();
    if (settings->padding) {  // rows must know each other's length
      std::vector<std::string> converted;
      std::vector<std::vector<std::uint32_t>> rows = ids_.encode_rows(
          *settings, runtime::whole_utf8(texts, chars, converted), add_special_tokens, num_threads);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        ids.insert(ids.end(), rows[i].begin(), rows[i].end());
        offsets[i + 1] = static_cast<std::int64_t>(ids.size());
      }
      return;
    }
    const unsigned threads = runtime::resolve_threads(num_threads);
    const std::size_t part_size = runtime::part_bytes_for(ids_.splits_documents(*settings, add_special_tokens));
    runtime::Scratch<runtime::Unit> scratch_units;
    std::vector<runtime::Unit>& units = scratch_units.get();
    units.reserve(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (runtime::held_as_chars(chars, i)) {
        runtime::add_units(i, chars[i], 0, /*first=*/true, /*last=*/true, part_size, units);
      } else {
        runtime::add_units(i, texts[i], 0, /*first=*/true, /*last=*/true, part_size, units);
      }
    }
    for (runtime::Unit& u : units) u.utf8_checked = utf8_checked;
    ids_.encode_units(*settings, units, add_special_tokens, threads, ids, offsets);
  }

  /// Names the fused ids-only stage chosen at load: "byte-level BPE",
  /// "SentencePiece BPE", "whitespace words", or "none" (the general stages).
  std::string_view fused_path() const noexcept {
    return ids_.fused_path(*settings_.load());
  }

  /// True when one document can be cut at its cut points
  /// (scanners/cut_points.hpp) into parts encoded apart (in parallel, or as
  /// a stream by DocumentEncoder) with the same ids as the whole: a fused
  /// path that proves its cuts (byte-level BPE on hand-written scanners
  /// with no normalizer but Unicode forms and Lowercase; SentencePiece BPE;
  /// whitespace words), no added token a cut could change, a
  /// post-processor that only puts ids before and after the sequence, and
  /// no truncation or padding (they need the whole).
  bool can_split_documents(bool add_special_tokens = true) const {
    return ids_.splits_documents(*settings_.load(), add_special_tokens);
  }

  /// Returns the ids of every text, in input order.
  std::vector<std::vector<std::uint32_t>> encode_batch(std::span<const std::string_view> texts,
                                                       bool add_special_tokens,
                                                       unsigned num_threads = 0) const {
    return ids_.encode_rows(*settings_.load(), texts, add_special_tokens, num_threads);
  }

  /// Returns the full Encoding of every text, in input order, padded
  /// together when padding is set (HF encode_batch).
  std::vector<Encoding> encode_batch_full(std::span<const std::string_view> texts,
                                          bool add_special_tokens,
                                          unsigned num_threads = 0) const {
    return encode_batch_full(texts, {}, add_special_tokens, num_threads);
  }

  /// Same, for sequences with optional pairs: `pairs` is empty or holds one
  /// entry per text (nullopt for a text without a pair).
  /// `fast`: as HF encode_batch_fast, Encodings without alignments
  /// (Encoding::drop_alignments), and the pair's tokens keep type id 0
  /// where no post-processor sets them (HF's encode_fast does so).
  std::vector<Encoding> encode_batch_full(std::span<const std::string_view> texts,
                                          std::span<const std::optional<std::string_view>> pairs,
                                          bool add_special_tokens,
                                          unsigned num_threads = 0, bool fast = false) const {
    if (!pairs.empty() && pairs.size() != texts.size()) {
      throw Error("encode_batch: " + std::to_string(pairs.size()) + " pairs for " +
                  std::to_string(texts.size()) + " texts");
    }
    const auto settings = settings_.load();
    std::vector<Encoding> out(texts.size());
    const unsigned threads = runtime::resolve_threads(num_threads);
    std::vector<std::size_t> bounds;
    runtime::chunk_bounds(texts.size(), [&](std::size_t i) { return texts[i].size(); }, threads, bounds);
    runtime::run_tasks(bounds.size() - 1, threads, [&](std::size_t c, runtime::Workspace& ws) {
      for (std::size_t i = bounds[c]; i < bounds[c + 1]; ++i) {
        try {
          out[i] = ids_.encode_full(*settings, ws, texts[i], pairs.empty() ? std::nullopt : pairs[i],
                                    add_special_tokens, /*pair_type_id=*/fast ? 0 : 1);
          if (fast) out[i].drop_alignments();
        } catch (const detail::InvalidUtf8& e) {
          throw runtime::item_error(e, i);
        }
      }
    });
    if (settings->padding) pad_encodings(out, *settings->padding);
    return out;
  }

  /// Returns the text of `ids` (HF Tokenizer::decode).
  std::string decode(std::span<const std::uint32_t> ids, bool skip_special_tokens = true) const {
    return decode_tokens(tokens_of(ids, skip_special_tokens));
  }

  /// Returns the token of each of `ids`, before the decoder (HF 1.0's
  /// Tokenizer.decode_tokens); ids that no token has are left out, e.g.
  ///   tokens_of({15496, 995}) -> {"Hello", "Ġworld"}.
  std::vector<std::string> tokens_of(std::span<const std::uint32_t> ids, bool skip_special_tokens) const {
    const auto settings = settings_.load();
    const AddedVocabulary& added = *settings->added_tokens;
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (const std::uint32_t id : ids) {
      std::optional<std::string> token = added.decode_form(id);
      if (!token) {
        if (auto t = model_->id_to_token(id)) token = std::string(*t);
      }
      if (!token) continue;
      if (skip_special_tokens && added.is_special(*token)) continue;
      tokens.push_back(std::move(*token));
    }
    return tokens;
  }

  std::optional<std::uint32_t> token_to_id(std::string_view token) const {
    return settings_.load()->added_tokens->token_to_id(token, *model_);
  }
  std::optional<std::string> id_to_token(std::uint32_t id) const {
    if (const AddedToken* t = settings_.load()->added_tokens->find(id)) return t->content;
    if (auto t = model_->id_to_token(id)) return std::string(*t);
    return std::nullopt;
  }
  /// Vocabulary size, with or without the added tokens (HF get_vocab_size).
  std::size_t vocab_size(bool with_added_tokens = true) const {
    if (!with_added_tokens) return model_->vocab_size();
    std::size_t n = model_->vocab_size();
    const auto settings = settings_.load();
    for (const auto& [id, token] : settings->added_tokens->tokens()) {
      if (!model_->token_to_id(token.content)) ++n;
    }
    return n;
  }
  /// Returns one past the largest id the tokenizer can produce.
  std::size_t id_bound() const {
    std::size_t n = 0;
    for (const auto& [token, id] : model_->vocab()) n = std::max<std::size_t>(n, id + 1);
    const auto settings = settings_.load();
    const auto& added = settings->added_tokens->tokens();
    if (!added.empty()) n = std::max<std::size_t>(n, added.rbegin()->first + 1);
    return n;
  }

  /// Adds `tokens` to the added vocabulary as HF add_tokens does (a token
  /// marked special is one add_special_tokens would add) and returns how many
  /// were taken: all but the empty ones and those already there with the
  /// same flags. A token in the vocabulary keeps its id; a new one gets the
  /// next free id. Like the setters, it publishes a new snapshot: a call
  /// under way keeps the vocabulary it began with.
  ///   p.add_tokens(std::vector<snaptok::AddedToken>{{.content = "<tool>", .special = true}});
  std::size_t add_tokens(std::span<const AddedToken> tokens) {
    std::size_t taken = 0;
    settings_.update([&](EncodeSettings& s) {
      auto next = std::make_shared<AddedVocabulary>(*s.added_tokens);
      taken = next->add_tokens(tokens, *model_, normalizer_.get());
      s.added_tokens = std::move(next);
    });
    return taken;
  }

  /// When true, special tokens in the input are encoded as ordinary text
  /// (for untrusted input; HF encode_special_tokens).
  void set_encode_special_tokens(bool value) {
    settings_.update([&](EncodeSettings& s) { s.encode_special_tokens = value; });
  }
  bool encode_special_tokens() const { return settings_.load()->encode_special_tokens; }

  /// Sets the byte budget that all threads' piece caches of this tokenizer
  /// share (0 disables them); caches start empty under a new budget.
  void set_cache_budget(std::size_t bytes) {
    settings_.update([&](EncodeSettings& s) {
      s.cache_budget = std::make_shared<runtime::CacheBudget>(bytes);
    });
    model_->set_cache_budget(bytes);
  }
  /// Hits, misses and bytes of the piece caches under the current budget.
  runtime::CacheBudget::Stats cache_stats() const {
    return settings_.load()->cache_budget->stats();
  }

  /// The current settings snapshot (truncation, padding, special tokens,
  /// cache budget, added vocabulary).
  std::shared_ptr<const EncodeSettings> settings() const { return settings_.load(); }

  const Model& model() const noexcept { return *model_; }
  /// The current added vocabulary (kept alive by the pointer).
  std::shared_ptr<const AddedVocabulary> added_vocabulary() const { return settings_.load()->added_tokens; }
  const Normalizer* normalizer() const noexcept { return normalizer_.get(); }
  const PreTokenizer* pre_tokenizer() const noexcept { return pre_tokenizer_.get(); }
  const PostProcessor* post_processor() const noexcept { return post_processor_.get(); }
  const Decoder* decoder() const noexcept { return decoder_.get(); }

  /// Truncation and padding, as HF enable_truncation / enable_padding.
  /// Throws when the stride does not fit in max_length less the special
  /// tokens of a single sequence (HF with_truncation).
  void set_truncation(std::optional<TruncationParams> p) {
    if (p) {
      const std::size_t n_added = post_processor_ ? post_processor_->added_tokens(false) : 0;
      // HF subtracts in usize: a max_length below n_added wraps and passes.
      if (p->max_length >= n_added && p->max_length - n_added < p->stride) {
        throw Error("truncation: stride " + std::to_string(p->stride) +
                    " is greater than or equal to the effective max length of " +
                    std::to_string(p->max_length - n_added) + " (= " +
                    std::to_string(p->max_length) + " max_length - " + std::to_string(n_added) +
                    " added special tokens)");
      }
    }
    settings_.update([&](EncodeSettings& s) { s.truncation = p; });
  }
  void set_padding(std::optional<PaddingParams> p) {
    settings_.update([&](EncodeSettings& s) { s.padding = p; });
  }
  std::optional<TruncationParams> truncation() const { return settings_.load()->truncation; }
  std::optional<PaddingParams> padding() const { return settings_.load()->padding; }

  /// Pads a batch of encodings together (batch-longest or fixed).
  void pad_batch(std::vector<Encoding>& encodings) const {
    if (const auto settings = settings_.load(); settings->padding) {
      pad_encodings(encodings, *settings->padding);
    }
  }

 private:
  Pipeline() = default;

  // from_json of the text read from `path`, with errors naming the file.
  static Pipeline from_json_file(const std::filesystem::path& path, std::string_view text) {
    try {
      return from_json(text);
    } catch (const Error& e) {
      throw Error(path.string() + ": " + e.what());
    }
  }

  // Builds the tokenizer a validated .st image holds; errors name the image.
  static Pipeline from_st_image(std::shared_ptr<const st::Image> image) {
    const std::string_view text = image->text(st::SectionType::pipeline);
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element root;
    if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS) {
      image->fail(std::string("pipeline: malformed JSON: ") + simdjson::error_message(err));
    }
    Pipeline tok;
    try {
      tok.load(detail::Json(root, "pipeline"), image.get());
    } catch (const Error& e) {
      const std::string_view what = e.what();
      if (what.starts_with(image->name() + ": ")) throw;
      image->fail(std::string(what));
    }
    tok.source_hash_ = image->source_hash();
    return tok;
  }

  // Parses `json_text` and loads it, with `model` (when given) in place of
  // the one its "model" describes.
  static Pipeline from_json_with_model(std::string_view json_text, ModelPtr model) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(json_text);
    simdjson::dom::element root;
    if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS) {
      throw Error(std::string("tokenizer.json: malformed JSON: ") + simdjson::error_message(err));
    }
    Pipeline tok;
    tok.load(detail::Json(root, ""), nullptr, std::move(model));
    return tok;
  }

  // Builds the pipeline from a tokenizer.json, or from a .st pipeline
  // section with the model's tables in `image`; a given `model` replaces
  // the one the JSON describes.
  void load(const detail::Json& root, const st::Image* image, ModelPtr model = nullptr) {
    if (!root.is_object()) root.fail("expected a JSON object");
    if (auto v = root.find("version"); v && v->str() != "1.0") {
      v->fail("unknown tokenizer version \"" + std::string(v->str()) + "\"");
    }
    pipeline_json_ = st::PipelineJson::capture(root);
    model_ = model ? std::move(model) : make_model(root.at("model"), image);
    if (auto n = root.find("normalizer")) normalizer_ = make_normalizer(*n);
    if (auto p = root.find("pre_tokenizer")) pre_tokenizer_ = make_pre_tokenizer(*p);
    if (auto p = root.find("post_processor")) post_processor_ = make_post_processor(*p);
    if (auto d = root.find("decoder")) decoder_ = make_decoder(*d);
    EncodeSettings settings;
    if (auto t = root.find("truncation")) settings.truncation = truncation_from_json(*t);
    if (auto p = root.find("padding")) settings.padding = padding_from_json(*p);
    std::optional<std::size_t> cache_budget;
    if (auto own = root.find("snaptok")) {  // a .st pipeline's saved settings
      settings.encode_special_tokens = own->get_bool("encode_special_tokens", false);
      if (auto b = own->find("cache_budget")) cache_budget = static_cast<std::size_t>(b->u64());
    }
    std::vector<AddedToken> added;
    if (auto a = root.find("added_tokens")) {
      for (const detail::Json& item : a->array()) added.push_back(added_token_from_json(item));
    }
    auto vocabulary = std::make_shared<AddedVocabulary>();
    vocabulary->add_tokens(added, *model_, normalizer_.get());
    settings.added_tokens = std::move(vocabulary);
    settings_.update([&](EncodeSettings& s) { s = settings; });
    if (cache_budget) set_cache_budget(*cache_budget);
    ids_ = IdsRoute(normalizer_, pre_tokenizer_, model_, post_processor_);
  }

  // The general stages with offsets (general_stages.hpp), over this
  // tokenizer's stages.
  GeneralStages general() const noexcept { return ids_.general(); }

  st::PipelineJson pipeline_json_;  // what a .st pipeline section holds
  std::uint64_t source_hash_ = 0;    // checksum of the tokenizer.json it came from
  ModelPtr model_;
  NormalizerPtr normalizer_;
  PreTokenizerPtr pre_tokenizer_;
  PostProcessorPtr post_processor_;
  DecoderPtr decoder_;
  runtime::SettingsSlot settings_;  // and the added vocabulary
  // The ids-only route, chosen at load from the stages above (shares them).
  IdsRoute ids_;

  friend class DocumentEncoder;
};

}  // namespace snaptok

#include "snaptok/document_encoder.hpp"  // IWYU pragma: export
