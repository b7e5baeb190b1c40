// The text of a large listing, printed one job at a time as the jobs arrive and put in order
// at the end: each job's lines form one piece; Ordered() returns the pieces in a given order.
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
  std::string* text() { return &text_; }
  // Ends the current piece unless nothing was printed since the last one; true when it did.
  bool EndPiece();
  size_t pieces() const { return ends_.size(); }

  // Writes `head`, then the pieces in `order` (indexes in the order they were ended), through
  // a small buffer: the ordered text is never held whole.
  void WriteOrdered(std::ostream& out, std::string_view head,
                    std::span<const uint32_t> order) const;

 private:
  std::string text_;
  std::vector<size_t> ends_;  // where each piece ends in text_
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_LISTING_TEXT_H_
