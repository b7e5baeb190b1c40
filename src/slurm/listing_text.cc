#include "slurm/listing_text.h"

#include "wire/frame.h"

namespace gantry::slurm {

void ListingText::Reserve(size_t pieces, size_t bytes_each) {
  ends_.reserve(pieces);
  text_.reserve(pieces * bytes_each);
  wire::AdviseHugePages(text_.data(), text_.capacity());
}

bool ListingText::EndPiece() {
  const size_t begin = ends_.empty() ? 0 : ends_.back();
  if (text_.size() == begin) return false;
  ends_.push_back(text_.size());
  return true;
}

std::string ListingText::Ordered(std::string head, std::span<const uint32_t> order) const {
  std::string out = std::move(head);
  out.reserve(out.size() + text_.size());
  wire::AdviseHugePages(out.data(), out.capacity());
  for (uint32_t i : order) {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    out.append(text_, begin, ends_[i] - begin);
  }
  return out;
}

}  // namespace gantry::slurm
