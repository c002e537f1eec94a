// Truncation and padding, as Hugging Face `tokenizers` does them
// (utils/truncation.rs, utils/padding.rs, Encoding::truncate / Encoding::pad):
// the parameters with their tokenizer.json form, the split of an encoding into
// a kept part and overflowing windows (with stride, from either side), the
// share-out between the two sequences of a pair, and padding to the longest
// of a batch or to a fixed length.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/error.hpp"
#include "snaptok/options.hpp"

namespace snaptok {

/// Reads the "truncation" section of a tokenizer.json:
/// {"direction": "Right", "max_length": 128, "strategy": "LongestFirst", "stride": 0}
/// ("direction" may be absent, as in files older than HF 0.13).
inline TruncationParams truncation_from_json(const detail::Json& json) {
  TruncationParams p;
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  if (auto d = json.find("direction")) {
    const std::string_view v = d->str();
    if (v == "Left") {
      p.direction = TruncationDirection::left;
    } else if (v == "Right") {
      p.direction = TruncationDirection::right;
    } else {
      d->fail("unknown direction \"" + std::string(v) + "\" (expected \"Left\" or \"Right\")");
    }
  }
  p.max_length = static_cast<std::size_t>(json.at("max_length").u64());
  const detail::Json s = json.at("strategy");
  const std::string_view v = s.str();
  if (v == "LongestFirst") {
    p.strategy = TruncationStrategy::longest_first;
  } else if (v == "OnlyFirst") {
    p.strategy = TruncationStrategy::only_first;
  } else if (v == "OnlySecond") {
    p.strategy = TruncationStrategy::only_second;
  } else {
    s.fail("unknown strategy \"" + std::string(v) +
           "\" (expected \"LongestFirst\", \"OnlyFirst\" or \"OnlySecond\")");
  }
  p.stride = static_cast<std::size_t>(json.at("stride").u64());
  return p;
}

/// The "truncation" section that truncation_from_json reads back.
inline std::string to_json(const TruncationParams& p) {
  return "{\"direction\":\"" + std::string(json_name(p.direction)) + "\",\"max_length\":" +
         std::to_string(p.max_length) + ",\"strategy\":\"" + std::string(json_name(p.strategy)) +
         "\",\"stride\":" + std::to_string(p.stride) + "}";
}

/// Reads the "padding" section of a tokenizer.json:
/// {"strategy": "BatchLongest" | {"Fixed": 128}, "direction": "Right",
///  "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}
inline PaddingParams padding_from_json(const detail::Json& json) {
  PaddingParams p;
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  const detail::Json s = json.at("strategy");
  if (s.is_string()) {
    if (s.str() != "BatchLongest") {
      s.fail("unknown strategy \"" + std::string(s.str()) +
             "\" (expected \"BatchLongest\" or {\"Fixed\": n})");
    }
  } else if (s.is_object()) {
    std::size_t members = 0;
    s.for_each_member([&](std::string_view, const detail::Json&) { ++members; });
    if (members != 1) s.fail("expected \"BatchLongest\" or {\"Fixed\": n}");
    p.fixed_length = static_cast<std::size_t>(s.at("Fixed").u64());
  } else {
    s.fail("expected \"BatchLongest\" or {\"Fixed\": n}, got " + s.type_name());
  }
  const detail::Json d = json.at("direction");
  if (d.str() == "Left") {
    p.direction = PaddingDirection::left;
  } else if (d.str() == "Right") {
    p.direction = PaddingDirection::right;
  } else {
    d.fail("unknown direction \"" + std::string(d.str()) + "\" (expected \"Left\" or \"Right\")");
  }
  if (auto m = json.find("pad_to_multiple_of")) p.pad_to_multiple_of = m->u64();
  p.pad_id = json.at("pad_id").u32();
  p.pad_type_id = json.at("pad_type_id").u32();
  p.pad_token = std::string(json.at("pad_token").str());
  return p;
}

/// The "padding" section that padding_from_json reads back.
inline std::string to_json(const PaddingParams& p) {
  const std::string strategy =
      p.fixed_length ? "{\"Fixed\":" + std::to_string(*p.fixed_length) + "}" : "\"BatchLongest\"";
  return "{\"strategy\":" + strategy + ",\"direction\":\"" + std::string(json_name(p.direction)) +
         "\",\"pad_to_multiple_of\":" +
         (p.pad_to_multiple_of ? std::to_string(*p.pad_to_multiple_of) : std::string("null")) +
         ",\"pad_id\":" + std::to_string(p.pad_id) + ",\"pad_type_id\":" + std::to_string(p.pad_type_id) +
         ",\"pad_token\":" + detail::json_quote(p.pad_token) + "}";
}

namespace detail {

template <class T>
std::vector<T> slice_of(const std::vector<T>& v, std::size_t start, std::size_t stop) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(start),
                        v.begin() + static_cast<std::ptrdiff_t>(stop));
}

inline Encoding encoding_part(const Encoding& e, std::size_t start, std::size_t stop) {
  Encoding out;
  out.ids = slice_of(e.ids, start, stop);
  out.type_ids = slice_of(e.type_ids, start, stop);
  out.tokens = slice_of(e.tokens, start, stop);
  out.word_ids = slice_of(e.word_ids, start, stop);
  out.offsets = slice_of(e.offsets, start, stop);
  out.special_tokens_mask = slice_of(e.special_tokens_mask, start, stop);
  out.attention_mask = slice_of(e.attention_mask, start, stop);
  return out;
}

template <class T>
void pad_vector(std::vector<T>& v, std::size_t n, const T& value, bool left) {
  v.insert(left ? v.begin() : v.end(), n, value);
}

}  // namespace detail

/// Cuts `enc` to `max_len` tokens (HF Encoding::truncate): the kept window
/// replaces `enc` and the rest become `enc.overflowing`, windows of `max_len`
/// tokens that overlap by `stride`, taken from the end for `left`. Earlier
/// overflowing parts and sequence ranges are dropped. max_len == 0 moves the
/// whole encoding into `overflowing`.
/// Throws when stride >= max_len (HF panics there).
inline void truncate_encoding(Encoding& enc, std::size_t max_len, std::size_t stride,
                              TruncationDirection direction) {
  const std::size_t len = enc.ids.size();
  if (max_len >= len) return;
  if (max_len == 0) {
    Encoding whole = std::move(enc);
    enc = Encoding{};
    enc.overflowing.push_back(std::move(whole));
    return;
  }
  if (stride >= max_len) {
    throw Error("truncation: stride (" + std::to_string(stride) +
                ") must be strictly less than max_len=" + std::to_string(max_len) +
                " (max_len is the max_length less the special tokens the post-processor adds)");
  }
  const std::size_t step = max_len - stride;
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  if (direction == TruncationDirection::right) {
    for (std::size_t start = 0; start < len; start += step) {
      const std::size_t stop = std::min(start + max_len, len);
      parts.emplace_back(start, stop);
      if (stop == len) break;
    }
  } else {
    // Rust: (0..len).rev().step_by(step): stop-1 = len-1, len-1-step, ...
    for (std::size_t k = 0; k < len; k += step) {
      const std::size_t stop = len - k;
      const std::size_t start = stop > max_len ? stop - max_len : 0;
      parts.emplace_back(start, stop);
      if (start == 0) break;
    }
  }
  Encoding kept = detail::encoding_part(enc, parts[0].first, parts[0].second);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    kept.overflowing.push_back(detail::encoding_part(enc, parts[i].first, parts[i].second));
  }
  enc = std::move(kept);
}

/// Truncates a sequence and its optional pair to `params.max_length` tokens
/// in all (HF truncate_encodings). longest_first shares the length out,
/// the shorter sequence kept whole when it fits; only_first / only_second cut
/// that one sequence. Throws as HF does when only_second has no pair, or when
/// the sequence to cut is too short to reach max_length.
inline void truncate_encodings(Encoding& enc, std::optional<Encoding>& pair,
                               const TruncationParams& params) {
  if (params.max_length == 0) {
    truncate_encoding(enc, 0, params.stride, params.direction);
    if (pair) truncate_encoding(*pair, 0, params.stride, params.direction);
    return;
  }
  const std::size_t total = enc.ids.size() + (pair ? pair->ids.size() : 0);
  if (total <= params.max_length) return;
  const std::size_t to_remove = total - params.max_length;
  switch (params.strategy) {
    case TruncationStrategy::longest_first: {
      if (!pair) {
        truncate_encoding(enc, total - to_remove, params.stride, params.direction);
        return;
      }
      std::size_t n1 = enc.ids.size();
      std::size_t n2 = pair->ids.size();
      const bool swap = n1 > n2;
      if (swap) std::swap(n1, n2);
      if (n1 > params.max_length) {
        n2 = n1;
      } else {
        n2 = std::max(n1, params.max_length - n1);
      }
      if (n1 + n2 > params.max_length) {
        n1 = params.max_length / 2;
        n2 = n1 + params.max_length % 2;
      }
      if (swap) std::swap(n1, n2);
      truncate_encoding(enc, n1, params.stride, params.direction);
      truncate_encoding(*pair, n2, params.stride, params.direction);
      return;
    }
    case TruncationStrategy::only_first:
    case TruncationStrategy::only_second: {
      Encoding* target = &enc;
      if (params.strategy == TruncationStrategy::only_second) {
        if (!pair) throw Error("Truncation error: Second sequence not provided");
        target = &*pair;
      }
      const std::size_t target_len = target->ids.size();
      if (target_len <= to_remove) {
        throw Error(
            "Truncation error: Sequence to truncate too short to respect the provided "
            "max_length");
      }
      truncate_encoding(*target, target_len - to_remove, params.stride, params.direction);
      return;
    }
  }
}

/// The longest an encoding may be padded to: 2^31 tokens (about 80 GiB of
/// Encoding fields), past which padding is an error rather than an attempt
/// to allocate the impossible.
inline constexpr std::size_t kMaxPaddedLength = std::size_t{1} << 31;

/// Pads `enc` (and, first, each of its overflowing parts) to `target_length`
/// tokens (HF Encoding::pad): pad ids, type ids, tokens, no word, offsets
/// (0, 0), special mask 1, attention mask 0. Left padding shifts the
/// sequence ranges; longer encodings are left as they are.
inline void pad_encoding(Encoding& enc, std::size_t target_length, std::uint32_t pad_id,
                         std::uint32_t pad_type_id, const std::string& pad_token,
                         PaddingDirection direction) {
  for (Encoding& o : enc.overflowing) {
    pad_encoding(o, target_length, pad_id, pad_type_id, pad_token, direction);
  }
  if (enc.ids.size() >= target_length) return;
  if (target_length > kMaxPaddedLength) {
    throw Error("padding: cannot pad to " + std::to_string(target_length) + " tokens (at most " +
                std::to_string(kMaxPaddedLength) + " per encoding)");
  }
  const std::size_t n = target_length - enc.ids.size();
  const bool left = direction == PaddingDirection::left;
  detail::pad_vector(enc.ids, n, pad_id, left);
  detail::pad_vector(enc.type_ids, n, pad_type_id, left);
  detail::pad_vector(enc.tokens, n, pad_token, left);
  detail::pad_vector(enc.word_ids, n, std::optional<std::uint32_t>{}, left);
  detail::pad_vector(enc.attention_mask, n, std::uint32_t{0}, left);
  detail::pad_vector(enc.special_tokens_mask, n, std::uint32_t{1}, left);
  detail::pad_vector(enc.offsets, n, Offsets{0, 0}, left);
  if (left) {
    for (auto& [seq, r] : enc.sequence_ranges) r = Offsets{r.start + n, r.end + n};
  }
}

/// Returns the length a batch whose longest row has `longest` tokens is
/// padded to (HF pad_encodings: the fixed length or the longest, rounded up
/// to pad_to_multiple_of).
inline std::size_t padded_length(const PaddingParams& params, std::size_t longest) {
  std::size_t n = params.fixed_length ? *params.fixed_length : longest;
  if (params.pad_to_multiple_of && *params.pad_to_multiple_of > 0) {
    const std::size_t m = *params.pad_to_multiple_of;
    if (n % m > 0) n += m - n % m;
  }
  return n;
}

/// Pads every encoding of a batch together (HF pad_encodings).
inline void pad_encodings(std::vector<Encoding>& encodings, const PaddingParams& params) {
  if (encodings.empty()) return;
  std::size_t longest = 0;
  for (const Encoding& e : encodings) longest = std::max(longest, e.ids.size());
  const std::size_t target = padded_length(params, longest);
  for (Encoding& e : encodings) {
    pad_encoding(e, target, params.pad_id, params.pad_type_id, params.pad_token,
                 params.direction);
  }
}

}  // namespace snaptok
