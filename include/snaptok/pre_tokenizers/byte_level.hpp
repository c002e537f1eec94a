// ByteLevel pre-tokenizer (GPT-2): optional prefix space, the GPT-2 regex
// split (Isolated), then every byte of every piece rewritten as its printable
// stand-in char, so the BPE vocabulary covers all bytes.
#pragma once

#include <vector>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/regex.hpp"
#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

/// The GPT-2 pre-tokenization pattern HF's ByteLevel uses.
inline constexpr std::string_view kGpt2Pattern = scanners::kGpt2Pattern;

/// Rewrites every byte of `ns` as its byte-level char (HF ByteLevel's
/// normalize step; also the ByteLevel normalizer).
inline void byte_level_rewrite(NormalizedString& ns) {
  const auto& table = detail::byte_level_table();
  const std::string& s = ns.get();
  std::vector<CharChange> dest;
  dest.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = detail::utf8_len(static_cast<unsigned char>(s[i]));
    for (std::size_t k = 0; k < len; ++k) {
      dest.push_back({table.byte_to_cp[static_cast<unsigned char>(s[i + k])], k > 0 ? 1 : 0});
    }
    i += len;
  }
  ns.transform(dest, 0);
}

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  // `add_prefix_space` and `trim_offsets` are required (as in HF; the latter
  // only matters to the ByteLevel post-processor), `use_regex` defaults to true.
  explicit ByteLevelPreTokenizer(const detail::Json& json)
      : add_prefix_space_(json.at("add_prefix_space").boolean()),
        use_regex_(true) {
    if (auto r = find_defaulted(json, "use_regex")) use_regex_ = r->boolean();
    json.at("trim_offsets").boolean();
    if (use_regex_) regex_ = &gpt2_regex();
  }

  bool add_prefix_space() const noexcept { return add_prefix_space_; }
  bool use_regex() const noexcept { return use_regex_; }

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([&](std::size_t, NormalizedString&& ns,
                             std::vector<NormalizedString>& out) {
      if (add_prefix_space_ && ns.get().front() != ' ') ns.prepend(" ");
      if (regex_) {
        ns.split(regex_->find_matches(ns.get()), SplitBehavior::isolated, out);
      } else {
        out.push_back(std::move(ns));
      }
    });
    pts.normalize(byte_level_rewrite);
  }

  static const detail::Regex& gpt2_regex() {
    static const detail::Regex re(kGpt2Pattern, "ByteLevel");
    return re;
  }

 private:
  bool add_prefix_space_;
  bool use_regex_;
  const detail::Regex* regex_ = nullptr;
};

}  // namespace snaptok
