#pragma once
// A B+tree cursor (InnoDB's persistent cursor). It holds no latch between calls: positioning
// copies the current leaf into the cursor (one memcpy of 16 KiB) and releases it, so a caller may
// hold a cursor while writing the same tree from the same thread. Moving past the copied leaf
// follows the sibling link, or re-seeks from the root past the last key seen if the leaf changed
// meanwhile. It therefore sees each key at most once and in order, but is not a snapshot: a
// record inserted behind it is not seen, one inserted ahead may be.
//
// key(), value(), sys() point into the cursor's copy and stay valid until the next move.
// Errors: kCorruption for a damaged page; kInvalidArgument for Next()/Prev() on a cursor that
// is not Valid(); kBusy if repositioning kept failing because the tree changed under it
// thousands of times in a row. A cursor is used by one thread at a time.

#include <cstdint>
#include <memory>
#include <string>

#include "btree/btree.h"

namespace minnow {

class Cursor {
 public:
  ~Cursor();
  // Positions on the first record >= key. Not Valid() if there is none.
  Status Seek(ConstBytes key);
  // Positions on the last record <= key. Not Valid() if there is none.
  Status SeekForPrev(ConstBytes key);
  Status SeekToFirst();
  Status SeekToLast();
  Status Next();
  Status Prev();
  bool Valid() const;

  ConstBytes key() const;
  // The value; reads an overflow chain on first access (then kept until the next move). The
  // chain is read through the tree (under the leaf's latch), so it is the record's value now:
  // kNotFound if the record has been removed since the cursor moved to it.
  Result<ConstBytes> value();
  // The inline part only (no I/O): the whole value unless has_overflow().
  ConstBytes inline_value() const;
  bool has_overflow() const;
  ConstBytes sys() const;
  bool delete_marked() const;
  RecordLocation location() const;

 private:
  friend class BTree;
  struct Impl;
  explicit Cursor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace minnow
