// The text of a large listing, printed one job at a time as the jobs arrive and put in order
// at the end: each job's lines form one piece; WriteOrdered() writes the pieces in a given
// order. A listing read in parts (one per thread) keeps one ListingText per part and writes
// them together in one order, without joining them first. Thread-compatible.
#ifndef GANTRY_SLURM_VIEW_LISTING_TEXT_H_
#define GANTRY_SLURM_VIEW_LISTING_TEXT_H_

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::slurm {

// One piece (row) of a listing read in parts: the part, and the piece's index in that part.
struct ListingRow {
  uint32_t part = 0;
  uint32_t row = 0;
  friend bool operator==(const ListingRow&, const ListingRow&) = default;
};

class ListingText {
 public:
  // Room for `pieces` pieces of about `bytes_each` bytes (a hint).
  void Reserve(size_t pieces, size_t bytes_each);

  // Where the current piece is printed.
  std::string* text() { return &text_; }
  // Ends the current piece unless nothing was printed since the last one; true when it did.
  bool EndPiece();
  size_t pieces() const { return ends_.size(); }
  size_t bytes() const { return text_.size(); }
  // Piece i (in the order ended).
  std::string_view Piece(uint32_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    const std::string_view text = text_;
    return text.substr(begin, ends_[i] - begin);
  }

  // Writes `head`, then the pieces in `order` (indexes in the order they were ended), through
  // a small buffer: the ordered text is never held whole.
  void WriteOrdered(std::ostream& out, std::string_view head,
                    std::span<const uint32_t> order) const;
  // The same for the parts of one listing: `order` names each piece by part and index.
  static void WriteOrdered(std::ostream& out, std::string_view head,
                           std::span<const ListingText* const> parts,
                           std::span<const ListingRow> order);

 private:
  std::string text_;
  std::vector<size_t> ends_;  // where each piece ends in text_
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_LISTING_TEXT_H_
