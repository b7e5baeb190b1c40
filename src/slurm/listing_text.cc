#include "slurm/listing_text.h"

#include <algorithm>

namespace gantry::slurm {

void ListingText::Reserve(size_t pieces, size_t bytes_each) {
  ends_.reserve(pieces);
  text_.reserve(pieces * bytes_each);
}

bool ListingText::EndPiece() {
  const size_t begin = ends_.empty() ? 0 : ends_.back();
  if (text_.size() == begin) return false;
  ends_.push_back(text_.size());
  return true;
}

void ListingText::WriteOrdered(std::ostream& out, std::string_view head,
                               std::span<const uint32_t> order) const {
  constexpr size_t kBuffer = 256 << 10;
  std::string buffer(head);
  buffer.reserve(std::max(kBuffer, head.size()));
  for (uint32_t i : order) {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    if (buffer.size() + (ends_[i] - begin) > kBuffer) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
    buffer.append(text_, begin, ends_[i] - begin);
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace gantry::slurm
