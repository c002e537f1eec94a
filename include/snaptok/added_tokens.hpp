// Added vocabulary: tokens matched in the raw text before the model runs
// (special tokens like <|endoftext|>, user-added words). As in HF:
//  - ids: a token already in the model vocabulary keeps that id; others get
//    ids after the vocabulary, in file order (the ids written in the JSON are
//    not used);
//  - matching: leftmost-longest over the text, first the tokens with
//    normalized=false on the original text, then (after normalizing the gaps)
//    the tokens with normalized=true on the normalized text;
//  - single_word: a match touching a word char (\w) on either side is
//    dropped; lstrip/rstrip: the match swallows adjacent whitespace;
//  - encode_special_tokens: special tokens are not matched (treated as text).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "snaptok/added_token.hpp"
#include "snaptok/detail/aho_corasick.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenized_string.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

/// An "added_tokens" entry of a tokenizer.json (its "id" is not used: see above).
inline AddedToken added_token_from_json(const detail::Json& json) {
  return {std::string(json.at("content").str()), json.at("single_word").boolean(),
          json.at("lstrip").boolean(),           json.at("rstrip").boolean(),
          json.at("normalized").boolean(),       json.at("special").boolean()};
}

class AddedVocabulary {
 public:
  /// Adds `tokens` as HF AddedVocabulary::add_tokens does and rebuilds the
  /// matchers; returns how many were taken (HF's count: every token but the
  /// empty ones and those equal, flags included, to one already there).
  /// A token already known (added, or in the model's vocabulary) keeps its
  /// id; a new one gets the next id after the vocabulary and the added ids.
  std::size_t add_tokens(std::span<const AddedToken> tokens, const Model& model,
                         const Normalizer* normalizer) {
    std::uint32_t next_id = static_cast<std::uint32_t>(model.vocab_size());
    if (!by_id_.empty()) {
      const std::uint32_t max = by_id_.rbegin()->first;
      if (max >= next_id || next_id == 0) next_id = max + 1;
    }
    std::size_t taken = 0;
    for (const AddedToken& token : tokens) {
      if (token.content.empty()) continue;
      if (auto it = by_content_.find(token.content);
          it != by_content_.end() && by_id_.at(it->second) == token) {
        continue;
      }
      ++taken;
      const std::optional<std::uint32_t> known = token_to_id(token.content, model);
      const std::uint32_t id = known ? *known : next_id++;
      // HF keeps a normalized form once made, even when the token is later
      // given again with normalized=false (decode still uses it).
      if (token.normalized && normalizer) {
        NormalizedString ns(token.content, 0, token.content, false);
        normalizer->normalize(ns);
        if (ns.get() != token.content) normalized_form_[id] = ns.get();
      }
      by_content_[token.content] = id;
      if (token.special) special_.insert(token.content);
      by_id_[id] = token;
    }
    rebuild();
    return taken;
  }

  /// The "added_tokens" array of a tokenizer.json, as HF writes it: every
  /// token with its id, in id order.
  std::string to_json() const {
    std::string out = "[";
    for (const auto& [id, token] : by_id_) {
      if (out.size() > 1) out += ",";
      out += "{\"id\":" + std::to_string(id) + ",\"content\":" + detail::json_quote(token.content);
      for (const auto& [key, value] : {std::pair{"single_word", token.single_word}, {"lstrip", token.lstrip},
                                       {"rstrip", token.rstrip}, {"normalized", token.normalized},
                                       {"special", token.special}}) {
        out += std::string(",\"") + key + "\":" + (value ? "true" : "false");
      }
      out += "}";
    }
    return out + "]";
  }

  std::optional<std::uint32_t> token_to_id(std::string_view token, const Model& model) const {
    if (auto it = by_content_.find(std::string(token)); it != by_content_.end()) {
      return it->second;
    }
    return model.token_to_id(token);
  }

  /// The added token with `id`, if any.
  const AddedToken* find(std::uint32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
  }

  /// The string decoding uses for added token `id` (its normalized form when
  /// it was normalized on the way in).
  std::optional<std::string> decode_form(std::uint32_t id) const {
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return std::nullopt;
    if (auto n = normalized_form_.find(id); n != normalized_form_.end()) return n->second;
    return it->second.content;
  }

  bool is_special(std::string_view token) const {
    return special_.count(std::string(token)) != 0;
  }
  bool empty() const noexcept { return by_id_.empty(); }
  /// False when a token could match differently in the parts around a cut
  /// point ("word| word", scanners/cut_points.hpp) than in the whole: a token
  /// holding a letter next to a space could span the cut; an rstrip token
  /// ending in a letter would take the space after it; a single_word token
  /// starting with a space would see a word char before it only in the whole.
  bool allows_cut_points() const noexcept { return allows_cut_points_; }

  /// True when some token is matched on normalized text (normalized: true).
  bool has_normalized_tokens() const noexcept { return !normalized_trie_.empty(); }
  std::size_t size() const noexcept { return by_id_.size(); }
  const std::map<std::uint32_t, AddedToken>& tokens() const noexcept { return by_id_; }

  /// extract_and_normalize for a normalizer that changes nothing, over
  /// views: calls on_text(piece) for each piece of `text` between added
  /// tokens and on_token(id, match) for each added token, in order (`match`:
  /// the view of `text` it covers, the whitespace lstrip/rstrip take
  /// included).
  template <class OnText, class OnToken>
  void extract(std::string_view text, bool special_as_text, OnText&& on_text,
               OnToken&& on_token) const {
    if (text.empty()) return;
    find_splits(
        raw_trie_, text, special_as_text,
        [&](std::size_t a, std::size_t b) {
          const std::string_view gap = text.substr(a, b - a);
          find_splits(
              normalized_trie_, gap, special_as_text,
              [&](std::size_t c, std::size_t d) { on_text(gap.substr(c, d - c)); },
              [&](std::size_t c, std::size_t d, std::uint32_t id) { on_token(id, gap.substr(c, d - c)); });
        },
        [&](std::size_t a, std::size_t b, std::uint32_t id) { on_token(id, text.substr(a, b - a)); });
  }

  /// Splits out added tokens and normalizes the rest (HF
  /// extract_and_normalize). With `special_as_text`, special tokens are not
  /// matched: they stay text (HF encode_special_tokens, for untrusted input).
  void extract_and_normalize(PreTokenizedString& pts, const Normalizer* normalizer,
                             bool special_as_text) const {
    pts.split([&](std::size_t, NormalizedString&& ns, std::vector<Split>& out) {
      split_with(raw_trie_, std::move(ns), special_as_text, out);
    });
    pts.split([&](std::size_t, NormalizedString&& ns, std::vector<Split>& out) {
      if (normalizer) normalizer->normalize(ns);
      split_with(normalized_trie_, std::move(ns), special_as_text, out);
    });
  }

 private:
  // HF refresh_added_tokens: each id's latest token, on the matcher its
  // `normalized` flag picks, by its normalized form when it has one.
  void rebuild() {
    std::vector<std::pair<std::string_view, std::uint32_t>> raw, normalized;
    for (const auto& [id, token] : by_id_) {
      if (token.normalized) {
        auto n = normalized_form_.find(id);
        normalized.emplace_back(n != normalized_form_.end() ? std::string_view(n->second) : token.content, id);
      } else {
        raw.emplace_back(token.content, id);
      }
    }
    raw_trie_.build(std::move(raw));
    normalized_trie_.build(std::move(normalized));

    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    allows_cut_points_ = std::none_of(by_id_.begin(), by_id_.end(), [&](const auto& entry) {
      const AddedToken& token = entry.second;
      const std::string& c = token.content;
      for (std::size_t i = 0; i + 1 < c.size(); ++i) {
        if ((letter(c[i]) && c[i + 1] == ' ') || (c[i] == ' ' && letter(c[i + 1]))) return true;
      }
      return (token.rstrip && letter(c.back())) || (token.single_word && c.front() == ' ');
    });
  }

  // HF find_matches + split_with_indices over one split.
  void split_with(const detail::AhoCorasick& trie, NormalizedString&& ns, bool special_as_text,
                  std::vector<Split>& out) const {
    const std::string& s = ns.get();
    if (s.empty()) return;
    find_splits(
        trie, s, special_as_text,
        [&](std::size_t a, std::size_t b) {
          // Without offsets a whole-string slice is the string itself (and
          // the last use of `s`).
          if (a == 0 && b == s.size() && !ns.tracks_offsets()) {
            out.push_back({std::move(ns), {}, false});
          } else {
            out.push_back({ns.slice(a, b), {}, false});
          }
        },
        [&](std::size_t a, std::size_t b, std::uint32_t id) {
          Split added{ns.slice(a, b), {}, true};
          added.tokens.push_back({id, 0, static_cast<std::uint32_t>(b - a), true});
          out.push_back(std::move(added));
        });
  }

  // Cuts `s` at the matches of `trie` (HF find_matches): calls
  // on_text(start, end) for each non-empty gap and on_token(start, end, id)
  // for each added token, in order; lstrip/rstrip widen a token's range,
  // single_word drops a match touching a word char.
  template <class OnText, class OnToken>
  void find_splits(const detail::AhoCorasick& trie, std::string_view s, bool special_as_text,
                   OnText&& on_text, OnToken&& on_token) const {
    std::size_t start_offset = 0;
    std::size_t from = 0;
    while (auto m = trie.empty() ? std::nullopt : trie.find(s, from)) {
      from = m->end;
      std::size_t start = m->start, stop = m->end;
      const AddedToken& token = by_id_.at(m->value);
      if (special_as_text && special_.count(token.content)) continue;
      if (token.single_word) {
        const bool start_space = start == 0 || !ends_with_word(s, start);
        const bool stop_space = stop == s.size() || !starts_with_word(s, stop);
        if (!start_space || !stop_space) continue;
      }
      if (token.lstrip) {
        std::size_t i = start;
        while (i > 0) {
          std::size_t j = i;
          if (!unicode::is_whitespace(detail::prev_cp(s, j))) break;
          i = j;
        }
        start = std::max(i, start_offset);
      }
      if (token.rstrip) {
        while (stop < s.size()) {
          std::size_t j = stop;
          if (!unicode::is_whitespace(detail::next_cp(s, j))) break;
          stop = j;
        }
      }
      // A match that the previous one's rstrip swallowed vanishes (HF drops
      // the empty split, or panics with "bad split" once lstrip moves its
      // start past its end).
      if (start >= stop) continue;
      if (start_offset < start) on_text(start_offset, start);
      on_token(start, stop, m->value);
      start_offset = stop;
    }
    if (start_offset != s.size()) on_text(start_offset, s.size());
  }

  static bool ends_with_word(std::string_view s, std::size_t end) {
    std::size_t i = end;
    return unicode::is_word_char(detail::prev_cp(s, i));
  }
  static bool starts_with_word(std::string_view s, std::size_t start) {
    std::size_t i = start;
    return unicode::is_word_char(detail::next_cp(s, i));
  }

  std::map<std::uint32_t, AddedToken> by_id_;  // the latest token given for each id
  std::unordered_map<std::string, std::uint32_t> by_content_;
  std::unordered_set<std::string> special_;  // once special, always (as HF)
  std::unordered_map<std::uint32_t, std::string> normalized_form_;
  detail::AhoCorasick raw_trie_;  // tokens with normalized=false
  detail::AhoCorasick normalized_trie_;
  bool allows_cut_points_ = true;
};

}  // namespace snaptok
