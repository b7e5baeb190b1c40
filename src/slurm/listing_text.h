// The text of a large listing, printed one job at a time as the jobs arrive and put in order
// at the end: each job's lines form one piece; WriteOrdered() writes the pieces in a given
// order. Listings printed in parts (one per thread) are joined with Append, without a copy.
// Thread-compatible.
#ifndef GANTRY_SLURM_LISTING_TEXT_H_
#define GANTRY_SLURM_LISTING_TEXT_H_

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::slurm {

class ListingText {
 public:
  // Room for `pieces` pieces of about `bytes_each` bytes (a hint).
  void Reserve(size_t pieces, size_t bytes_each);

  // Where the current piece is printed.
  std::string* text() { return &texts_.back(); }
  // Ends the current piece unless nothing was printed since the last one; true when it did.
  bool EndPiece();
  size_t pieces() const { return pieces_.size(); }

  // Adds `next`'s pieces after this one's (taking its text); print nothing more afterwards.
  void Append(ListingText&& next);

  // Writes `head`, then the pieces in `order` (indexes in the order they were ended), through
  // a small buffer: the ordered text is never held whole.
  void WriteOrdered(std::ostream& out, std::string_view head,
                    std::span<const uint32_t> order) const;

 private:
  struct Piece {
    uint32_t text;  // index in texts_
    size_t begin;
    size_t end;
  };
  std::vector<std::string> texts_ = std::vector<std::string>(1);
  std::vector<Piece> pieces_;
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_LISTING_TEXT_H_
