#include "slurm/listing_text.h"

#include <algorithm>

namespace gantry::slurm {

void ListingText::Reserve(size_t pieces, size_t bytes_each) {
  pieces_.reserve(pieces);
  texts_.back().reserve(pieces * bytes_each);
}

bool ListingText::EndPiece() {
  const auto current = static_cast<uint32_t>(texts_.size() - 1);
  const size_t begin = pieces_.empty() || pieces_.back().text != current ? 0 : pieces_.back().end;
  const size_t end = texts_.back().size();
  if (end == begin) return false;
  pieces_.push_back(Piece{current, begin, end});
  return true;
}

void ListingText::Append(ListingText&& next) {
  const auto offset = static_cast<uint32_t>(texts_.size());
  for (std::string& text : next.texts_) texts_.push_back(std::move(text));
  pieces_.reserve(pieces_.size() + next.pieces_.size());
  for (Piece p : next.pieces_) pieces_.push_back(Piece{p.text + offset, p.begin, p.end});
}

void ListingText::WriteOrdered(std::ostream& out, std::string_view head,
                               std::span<const uint32_t> order) const {
  constexpr size_t kBuffer = 256 << 10;
  std::string buffer(head);
  buffer.reserve(std::max(kBuffer, head.size()));
  for (uint32_t i : order) {
    const Piece& p = pieces_[i];
    if (buffer.size() + (p.end - p.begin) > kBuffer) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
    buffer.append(texts_[p.text], p.begin, p.end - p.begin);
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace gantry::slurm
