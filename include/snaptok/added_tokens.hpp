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
#include <array>
#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenized_string.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

/// One entry of tokenizer.json's "added_tokens".
struct AddedToken {
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;

  static AddedToken from_json(const detail::Json& json) {
    return {std::string(json.at("content").str()), json.at("single_word").boolean(),
            json.at("lstrip").boolean(),           json.at("rstrip").boolean(),
            json.at("normalized").boolean(),       json.at("special").boolean()};
  }
  friend bool operator==(const AddedToken&, const AddedToken&) = default;
};

namespace detail {

// A byte trie answering "longest pattern starting here" (leftmost-longest
// search is a scan over start positions).
class PatternTrie {
 public:
  bool empty() const noexcept { return nodes_.size() <= 1; }

  void clear() {
    nodes_.assign(1, Node{});
    first_bytes_.fill(false);
  }

  void insert(std::string_view pattern, std::uint32_t value) {
    if (nodes_.empty()) clear();
    std::uint32_t n = 0;
    for (const char ch : pattern) {
      const auto c = static_cast<unsigned char>(ch);
      std::uint32_t child = find_child(n, c);
      if (child == kNone) {
        child = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back(Node{});
        auto& kids = nodes_[n].children;
        kids.insert(std::lower_bound(kids.begin(), kids.end(), std::make_pair(c, 0u),
                                     [](const auto& a, const auto& b) { return a.first < b.first; }),
                    {c, child});
      }
      n = child;
    }
    if (!pattern.empty()) {
      first_bytes_[static_cast<unsigned char>(pattern[0])] = true;
      // Like a builder fed duplicates, the first value for a pattern stays.
      if (nodes_[n].value == kNone) nodes_[n].value = value;
    }
  }

  struct Match {
    std::size_t start, end;
    std::uint32_t value;
  };

  // Returns the leftmost-longest match starting at or after `from`.
  std::optional<Match> find(std::string_view text, std::size_t from) const {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    for (std::size_t s = from; s < text.size(); ++s) {
      if (!first_bytes_[p[s]]) continue;
      std::uint32_t n = 0;
      std::optional<Match> best;
      for (std::size_t i = s; i < text.size(); ++i) {
        n = find_child(n, p[i]);
        if (n == kNone) break;
        if (nodes_[n].value != kNone) best = Match{s, i + 1, nodes_[n].value};
      }
      if (best) return best;
    }
    return std::nullopt;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Node {
    std::vector<std::pair<unsigned char, std::uint32_t>> children;
    std::uint32_t value = kNone;
  };
  std::uint32_t find_child(std::uint32_t n, unsigned char c) const noexcept {
    for (const auto& [k, child] : nodes_[n].children) {
      if (k == c) return child;
      if (k > c) break;
    }
    return kNone;
  }

  std::vector<Node> nodes_ = std::vector<Node>(1);
  std::array<bool, 256> first_bytes_{};
};

}  // namespace detail

class AddedVocabulary {
 public:
  /// Adds `tokens` (HF AddedVocabulary::add_tokens) and rebuilds the matchers.
  void add_tokens(const std::vector<AddedToken>& tokens, const Model& model,
                  const Normalizer* normalizer) {
    std::uint32_t next_id = static_cast<std::uint32_t>(model.vocab_size());
    if (!by_id_.empty()) {
      const std::uint32_t max = by_id_.rbegin()->first;
      next_id = (max >= model.vocab_size() || model.vocab_size() == 0)
                    ? max + 1
                    : static_cast<std::uint32_t>(model.vocab_size());
    }
    for (const AddedToken& token : tokens) {
      if (token.content.empty()) continue;
      if (auto it = by_content_.find(token.content); it != by_content_.end()) {
        if (by_id_.at(it->second) == token) continue;
      }
      std::uint32_t id;
      if (auto known = token_to_id(token.content, model)) {
        id = *known;
      } else {
        id = next_id++;
      }
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
  }

  /// Treat special tokens as plain text when true (HF encode_special_tokens).
  void set_encode_special_tokens(bool v) noexcept { encode_special_tokens_ = v; }
  bool encode_special_tokens() const noexcept { return encode_special_tokens_; }

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
  std::size_t size() const noexcept { return by_id_.size(); }
  const std::map<std::uint32_t, AddedToken>& tokens() const noexcept { return by_id_; }

  /// Splits out added tokens and normalizes the rest (HF extract_and_normalize).
  void extract_and_normalize(PreTokenizedString& pts, const Normalizer* normalizer) const {
    pts.split([&](std::size_t, NormalizedString&& ns, std::vector<Split>& out) {
      split_with(raw_trie_, std::move(ns), out);
    });
    pts.split([&](std::size_t, NormalizedString&& ns, std::vector<Split>& out) {
      if (normalizer) normalizer->normalize(ns);
      split_with(normalized_trie_, std::move(ns), out);
    });
  }

 private:
  void rebuild() {
    raw_trie_.clear();
    normalized_trie_.clear();
    for (const auto& [id, token] : by_id_) {
      if (token.normalized) {
        auto n = normalized_form_.find(id);
        normalized_trie_.insert(n != normalized_form_.end() ? n->second : token.content, id);
      } else {
        raw_trie_.insert(token.content, id);
      }
    }
  }

  // HF find_matches + split_with_indices over one split.
  void split_with(const detail::PatternTrie& trie, NormalizedString&& ns,
                  std::vector<Split>& out) const {
    const std::string& s = ns.get();
    if (s.empty()) return;
    std::size_t start_offset = 0;
    std::size_t from = 0;
    bool any = false;
    auto emit_text = [&](std::size_t a, std::size_t b) {
      out.push_back({ns.slice(a, b), {}, false});
    };
    while (auto m = trie.empty() ? std::nullopt : trie.find(s, from)) {
      from = m->end;
      std::size_t start = m->start, stop = m->end;
      const AddedToken& token = by_id_.at(m->value);
      if (encode_special_tokens_ && special_.count(token.content)) continue;
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
      if (start_offset < start) emit_text(start_offset, start);
      Split added{ns.slice(start, stop), {}, true};
      added.tokens.push_back(
          {m->value, 0, static_cast<std::uint32_t>(stop - start), true});
      out.push_back(std::move(added));
      start_offset = stop;
      any = true;
    }
    if (!any && !ns.tracks_offsets()) {
      // Without offsets a whole-string slice is the string itself.
      out.push_back({std::move(ns), {}, false});
      return;
    }
    if (start_offset != s.size()) emit_text(start_offset, s.size());
  }

  static bool ends_with_word(const std::string& s, std::size_t end) {
    std::size_t i = end;
    return unicode::is_word_char(detail::prev_cp(s, i));
  }
  static bool starts_with_word(const std::string& s, std::size_t start) {
    std::size_t i = start;
    return unicode::is_word_char(detail::next_cp(s, i));
  }

  std::map<std::uint32_t, AddedToken> by_id_;
  std::unordered_map<std::string, std::uint32_t> by_content_;
  std::unordered_set<std::string> special_;
  std::unordered_map<std::uint32_t, std::string> normalized_form_;
  detail::PatternTrie raw_trie_;
  detail::PatternTrie normalized_trie_;
  bool encode_special_tokens_ = false;
};

}  // namespace snaptok
