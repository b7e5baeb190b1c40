#include "slurm_view/listing_text.h"

#include <algorithm>

namespace gantry::slurm {
namespace {

// Collects text and writes it out in blocks of about kBuffer bytes.
class BlockWriter {
 public:
  BlockWriter(std::ostream& out, std::string_view head) : out_(out), buffer_(head) {
    buffer_.reserve(std::max(kBuffer, head.size()));
  }
  ~BlockWriter() { Flush(); }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;

  void Add(std::string_view text) {
    if (buffer_.size() + text.size() > kBuffer) Flush();
    buffer_.append(text);
  }

 private:
  static constexpr size_t kBuffer = 256 << 10;
  void Flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  std::ostream& out_;
  std::string buffer_;
};

}  // namespace

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
  BlockWriter writer(out, head);
  for (uint32_t i : order) writer.Add(Piece(i));
}

void ListingText::WriteOrdered(std::ostream& out, std::string_view head,
                               std::span<const ListingText* const> parts,
                               std::span<const ListingRow> order) {
  BlockWriter writer(out, head);
  for (const ListingRow& r : order) writer.Add(parts[r.part]->Piece(r.row));
}

}  // namespace gantry::slurm
