// Metaspace pre-tokenizer (SentencePiece style): every ' ' becomes the
// `replacement` char (default U+2581 "▁"), the replacement is prepended per
// `prepend_scheme`, and with `split` the text is cut before each replacement.
//
//   always, split: "Hey  you" -> "▁Hey" "▁" "▁you"
//
// prepend_scheme "first" prepends only to a piece that starts at the very
// beginning of the input (HF tests offsets_original().start == 0): not after
// an added token, nor after text an earlier step removed.
#pragma once

#include <string>
#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

enum class PrependScheme { always, first, never };

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  // Reads HF's Metaspace: `replacement` (one char) is required;
  // `prepend_scheme` defaults to "always"; `split` (null = absent) to true;
  // the legacy `add_prefix_space: false` means "never" and is an error with
  // any other declared scheme; `add_prefix_space: true` and `str_rep` are
  // ignored.
  explicit MetaspacePreTokenizer(const detail::Json& json)
      : replacement_(single_char(json.at("replacement"))) {
    detail::append_cp(replacement_str_, replacement_);
    if (auto p = find_defaulted(json, "prepend_scheme")) {
      const std::string_view s = p->str();
      if (s == "always") {
        scheme_ = PrependScheme::always;
      } else if (s == "first") {
        scheme_ = PrependScheme::first;
      } else if (s == "never") {
        scheme_ = PrependScheme::never;
      } else {
        p->fail("unknown prepend_scheme \"" + std::string(s) +
                "\" (expected \"always\", \"first\" or \"never\")");
      }
    }
    if (auto a = json.find("add_prefix_space"); a && !a->boolean()) {
      if (scheme_ != PrependScheme::never) {
        a->fail("add_prefix_space does not match declared prepend_scheme");
      }
    }
    if (auto s = json.find("split")) split_ = s->boolean();
  }

  char32_t replacement() const noexcept { return replacement_; }
  PrependScheme prepend_scheme() const noexcept { return scheme_; }
  bool split() const noexcept { return split_; }
  // True when the result depends on original offsets (scheme "first"), so
  // the caller must track alignments even for an ids-only encode.
  bool needs_offsets() const override { return scheme_ == PrependScheme::first; }

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([&](std::size_t, NormalizedString&& ns,
                             std::vector<NormalizedString>& out) {
      if (ns.get().find(' ') != std::string::npos) {
        ns.replace(find_char_matches(ns.get(), [](char32_t c) { return c == U' '; }),
                   replacement_str_);
      }
      const bool starts_with = ns.get().starts_with(replacement_str_);
      if (!starts_with && (scheme_ == PrependScheme::always ||
                           (scheme_ == PrependScheme::first &&
                            ns.offsets_original().start == 0))) {
        ns.prepend(replacement_str_);
      }
      if (split_) {
        ns.split(find_char_matches(ns.get(), [&](char32_t c) { return c == replacement_; }),
                 SplitBehavior::merged_with_next, out);
      } else {
        out.push_back(std::move(ns));
      }
    });
  }

 private:
  char32_t replacement_;
  std::string replacement_str_;
  PrependScheme scheme_ = PrependScheme::always;
  bool split_ = true;
};

}  // namespace snaptok
