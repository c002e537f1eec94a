// Sequence post-processor: runs its processors one after the other on the
// list of encodings; the special tokens they add are summed.
#pragma once

#include <vector>

#include "snaptok/processors/processor.hpp"

namespace snaptok {

class SequenceProcessor final : public PostProcessor {
 public:
  /// Reads {"type": "Sequence", "processors": [...]}.
  explicit SequenceProcessor(const detail::Json& json) {
    for (const detail::Json& p : json.at("processors").array()) {
      processors_.push_back(make_post_processor(p));
    }
  }

  std::size_t added_tokens(bool is_pair) const override {
    std::size_t n = 0;
    for (const auto& p : processors_) n += p->added_tokens(is_pair);
    return n;
  }

  void process_encodings(std::vector<Encoding>& encodings,
                         bool add_special_tokens) const override {
    for (const auto& p : processors_) p->process_encodings(encodings, add_special_tokens);
  }

  void process_id_parts(std::vector<std::vector<std::uint32_t>>& parts,
                        bool add_special_tokens) const override {
    for (const auto& p : processors_) p->process_id_parts(parts, add_special_tokens);
  }

  void process_ids(std::vector<std::uint32_t>& ids, bool add_special_tokens) const override {
    // Usually at most one processor touches ids (e.g. ByteLevel + Template):
    // then the single-sequence fast path of that one is exact.
    const PostProcessor* active = nullptr;
    for (const auto& p : processors_) {
      if (p->ids_unchanged()) continue;
      if (active) return PostProcessor::process_ids(ids, add_special_tokens);
      active = p.get();
    }
    if (active) active->process_ids(ids, add_special_tokens);
  }

  bool ids_unchanged() const noexcept override {
    for (const auto& p : processors_) {
      if (!p->ids_unchanged()) return false;
    }
    return true;
  }

 private:
  std::vector<PostProcessorPtr> processors_;
};

}  // namespace snaptok
