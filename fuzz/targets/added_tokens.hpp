// Fuzz target: the added-token matcher (AddedVocabulary over the
// Aho-Corasick automaton) against a naive reference. The input lists up to
// six added tokens (flags byte, length byte, content), then the text. They
// are loaded in a tokenizer.json with a WordLevel model that knows only
// [UNK] and no normalizer or pre-tokenizer, so every text gap encodes to one
// [UNK] (id 0) spanning the gap. The reference scans naively, as HF does:
// leftmost-longest non-overlapping matches of the normalized: false tokens
// on the text, then of the normalized: true ones inside each gap; a
// single_word match touching a word char is dropped (the scan goes on after
// it); lstrip and rstrip widen a kept match over adjacent whitespace (a
// match the one before swallowed with its rstrip vanishes; HF leaves an
// empty split, dropped later, or panics with "bad split"). The
// ids and char offsets of the encoding must equal the reference's.
#pragma once

#include <snaptok/detail/utf8.hpp>
#include <snaptok/unicode/properties.hpp>

#include <functional>

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {
namespace added_tokens_detail {

struct Token {
  std::string content;
  bool single_word, lstrip, rstrip, normalized, special;
  std::uint32_t id = 0;
};

struct Piece {
  std::size_t start, end;  // bytes
  std::uint32_t id;        // 0: a text gap ([UNK])
};

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

inline std::string tokenizer_json(const std::vector<Token>& tokens) {
  std::string added;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const auto flag = [](bool b) { return b ? "true" : "false"; };
    added += (i ? "," : "") + std::string("{\"id\":") + std::to_string(i + 1) +
             ",\"content\":" + json_string(t.content) + ",\"single_word\":" + flag(t.single_word) +
             ",\"lstrip\":" + flag(t.lstrip) + ",\"rstrip\":" + flag(t.rstrip) +
             ",\"normalized\":" + flag(t.normalized) + ",\"special\":" + flag(t.special) + "}";
  }
  return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)" + added +
         R"(],"normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,)"
         R"("model":{"type":"WordLevel","vocab":{"[UNK]":0},"unk_token":"[UNK]"}})";
}

inline bool word_before(std::string_view s, std::size_t at) {
  return at > 0 && snaptok::unicode::is_word_char(snaptok::detail::prev_cp(s, at));
}
inline bool word_after(std::string_view s, std::size_t at) {
  return at < s.size() && snaptok::unicode::is_word_char(snaptok::detail::next_cp(s, at));
}

// The pieces of s[begin, end) around the matches of `tokens`, naively.
inline void naive_split(std::string_view text, std::size_t begin, std::size_t end,
                        const std::vector<const Token*>& tokens, std::vector<Piece>& out,
                        const std::function<void(std::size_t, std::size_t)>& on_gap) {
  const std::string_view s = text.substr(begin, end - begin);
  std::size_t start_offset = 0, from = 0;
  while (from < s.size()) {
    const Token* best = nullptr;
    std::size_t at = from;
    for (; at < s.size() && !best; ++at) {
      for (const Token* t : tokens) {
        if (s.substr(at).starts_with(t->content) && (!best || t->content.size() > best->content.size())) {
          best = t;
        }
      }
    }
    if (!best) break;
    std::size_t start = at - 1, stop = start + best->content.size();
    from = stop;
    if (best->single_word && (word_before(s, start) || word_after(s, stop))) continue;
    if (best->lstrip) {
      std::size_t i = start;
      while (i > 0) {
        std::size_t j = i;
        if (!snaptok::unicode::is_whitespace(snaptok::detail::prev_cp(s, j))) break;
        i = j;
      }
      start = std::max(i, start_offset);
    }
    while (best->rstrip && stop < s.size()) {
      std::size_t j = stop;
      if (!snaptok::unicode::is_whitespace(snaptok::detail::next_cp(s, j))) break;
      stop = j;
    }
    if (start >= stop) continue;  // swallowed by the match before
    if (start_offset < start) on_gap(begin + start_offset, begin + start);
    out.push_back({begin + start, begin + stop, best->id});
    start_offset = stop;
  }
  if (start_offset < s.size()) on_gap(begin + start_offset, end);
}

}  // namespace added_tokens_detail

inline void added_tokens(std::span<const std::uint8_t> data) {
  using namespace added_tokens_detail;
  Reader in(data);
  std::vector<Token> tokens(1 + in.byte() % 6);
  for (Token& t : tokens) {
    const std::uint8_t f = in.byte();
    t = {std::string(in.bytes(1 + in.byte() % 6)), bool(f & 1), bool(f & 2), bool(f & 4), bool(f & 8),
         bool(f & 16)};
    if (t.content.empty() || t.content == "[UNK]" || !valid_utf8(t.content)) return;
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (tokens[i].content == tokens[j].content) return;  // which flags win is not this target's question
    }
  }
  const std::string_view text = in.rest();
  if (!valid_utf8(text)) return;

  const snaptok::Tokenizer tok = snaptok::Tokenizer::from_json(tokenizer_json(tokens));
  std::vector<const Token*> raw, normalized;
  for (Token& t : tokens) {
    t.id = tok.token_to_id(t.content).value();
    (t.normalized ? normalized : raw).push_back(&t);
  }
  std::vector<Piece> want;
  naive_split(text, 0, text.size(), raw, want, [&](std::size_t a, std::size_t b) {
    naive_split(text, a, b, normalized, want, [&](std::size_t c, std::size_t d) { want.push_back({c, d, 0}); });
  });

  const snaptok::Encoding got = tok.encode_full(text, false);
  const auto chars = [&](std::size_t byte) { return snaptok::detail::byte_to_char(text, byte); };
  bool same = got.ids.size() == want.size();
  for (std::size_t i = 0; same && i < want.size(); ++i) {
    same = got.ids[i] == want[i].id && got.offsets[i] == snaptok::Offsets{chars(want[i].start), chars(want[i].end)};
  }
  if (!same) fail("added_tokens", "the matches differ from the naive reference's", text);
}

}  // namespace snaptok_fuzz
