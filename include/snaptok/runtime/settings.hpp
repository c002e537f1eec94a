// What an encode reads that may change after loading, as immutable
// snapshots: truncation, padding, the special-token switch, the cache budget
// and the added vocabulary. A setter publishes a new
// snapshot atomically; an encode loads one at its start and keeps it, so no
// call ever sees a half-changed tokenizer, and a snapshot lives as long as
// any call still holds it.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <utility>

#include "snaptok/runtime/piece_cache.hpp"
#include "snaptok/truncation.hpp"

namespace snaptok {

class AddedVocabulary;  // added_tokens.hpp

struct EncodeSettings {
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
  /// Special tokens in the input are encoded as text (HF encode_special_tokens).
  bool encode_special_tokens = false;
  /// Shared by every worker's piece cache of this tokenizer.
  std::shared_ptr<runtime::CacheBudget> cache_budget =
      std::make_shared<runtime::CacheBudget>(runtime::CacheBudget::kDefaultBytes);
  /// The added tokens and their matchers, replaced whole by add_tokens (set
  /// by every Pipeline load; never null there).
  std::shared_ptr<const AddedVocabulary> added_tokens;
};

namespace runtime {

/// Holds the current EncodeSettings snapshot. Copying a holder copies the
/// pointer to the current snapshot (both then share it until one changes).
class SettingsSlot {
 public:
  SettingsSlot() : current_(std::make_shared<const EncodeSettings>()) {}
  SettingsSlot(const SettingsSlot& other) : current_(other.load()) {}
  SettingsSlot& operator=(const SettingsSlot& other) {
    if (this != &other) current_.store(other.load(), std::memory_order_release);
    return *this;
  }

  /// Returns the current snapshot (keep it for the whole call).
  std::shared_ptr<const EncodeSettings> load() const {
    return current_.load(std::memory_order_acquire);
  }

  /// Publishes change(copy of the current snapshot) as the new snapshot; a
  /// concurrent update is never lost (the change is redone on the newer one).
  template <class Change>
  void update(Change&& change) {
    std::shared_ptr<const EncodeSettings> seen = load();
    for (;;) {
      auto next = std::make_shared<EncodeSettings>(*seen);
      change(*next);
      std::shared_ptr<const EncodeSettings> published = std::move(next);
      if (current_.compare_exchange_weak(seen, published, std::memory_order_acq_rel)) return;
    }
  }

 private:
  std::atomic<std::shared_ptr<const EncodeSettings>> current_;
};

}  // namespace runtime
}  // namespace snaptok
