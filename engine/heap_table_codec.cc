// The heap tables' shared helpers: the catalog record, the stored row (index keys then row),
// index entries and lock types. Formats are in engine/heap_table_internal.h.
#include <fmt/format.h>

#include <array>

#include "engine/heap_table_internal.h"
#include "myisam/row_position.h"

namespace minnow::heap_internal {

constexpr uint8_t kHeapEntryVersion = 1;
constexpr size_t kMaxIndexNameLength = 64;
constexpr size_t kMaxHeapKeyBytes = kMaxKeySize - kRowPositionSize;

// The catalog record's value.
std::string EncodeEntry(PageNo heap_header, const std::vector<HeapIndexSpec>& specs,
                        const std::vector<PageNo>& roots) {
  std::string v;
  v.push_back(static_cast<char>(kHeapEntryVersion));
  std::array<std::byte, 4> b;
  Store32(b.data(), heap_header);
  v.append(reinterpret_cast<const char*>(b.data()), 4);
  v.push_back(static_cast<char>(specs.size()));
  for (size_t i = 0; i < specs.size(); ++i) {
    Store32(b.data(), roots[i]);
    v.append(reinterpret_cast<const char*>(b.data()), 4);
    v.push_back(specs[i].unique ? 1 : 0);
    v.push_back(static_cast<char>(specs[i].name.size()));
    v.append(specs[i].name);
  }
  return v;
}

Result<DecodedEntry> DecodeEntry(std::string_view name, ConstBytes value) {
  std::string_view v = AsStringView(value);
  auto bad = [&] {
    return Status::Corruption(fmt::format("heap catalog entry of table '{}' is malformed", name));
  };
  if (v.size() < 6 || static_cast<uint8_t>(v[0]) != kHeapEntryVersion) return bad();
  DecodedEntry e;
  e.heap_header = Load32(reinterpret_cast<const std::byte*>(v.data() + 1));
  const size_t n = static_cast<uint8_t>(v[5]);
  if (n > kMaxHeapIndexes || e.heap_header == 0 || e.heap_header == kInvalidPageNo) return bad();
  size_t off = 6;
  for (size_t i = 0; i < n; ++i) {
    if (off + 6 > v.size()) return bad();
    const PageNo root = Load32(reinterpret_cast<const std::byte*>(v.data() + off));
    const uint8_t unique = static_cast<uint8_t>(v[off + 4]);
    const size_t len = static_cast<uint8_t>(v[off + 5]);
    off += 6;
    if (off + len > v.size() || len == 0 || unique > 1 || root == 0 || root == kInvalidPageNo) {
      return bad();
    }
    e.specs.push_back(HeapIndexSpec{std::string(v.substr(off, len)), unique == 1});
    e.roots.push_back(root);
    off += len;
  }
  if (off != v.size()) return bad();
  return e;
}

Status ValidateSpec(const HeapTableSpec& spec) {
  if (spec.indexes.size() > kMaxHeapIndexes) {
    return Status::InvalidArgument(
        fmt::format("{} indexes; at most {}", spec.indexes.size(), kMaxHeapIndexes));
  }
  for (size_t i = 0; i < spec.indexes.size(); ++i) {
    const std::string& n = spec.indexes[i].name;
    if (n.empty() || n.size() > kMaxIndexNameLength) {
      return Status::InvalidArgument(
          fmt::format("index {} has a name of {} characters; 1 to {} allowed", i, n.size(),
                      kMaxIndexNameLength));
    }
    for (size_t j = 0; j < i; ++j) {
      if (spec.indexes[j].name == n) {
        return Status::InvalidArgument(fmt::format("two indexes are named '{}'", n));
      }
    }
  }
  return Status::OK();
}

// A stored heap record: the index keys, then the row.
Status EncodeRecord(std::string_view row, const std::vector<std::string>& keys, size_t n,
                    std::string* out) {
  if (keys.size() != n) {
    return Status::InvalidArgument(
        fmt::format("{} index keys given; the table has {} indexes", keys.size(), n));
  }
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    if (keys[i].size() > kMaxHeapKeyBytes) {
      return Status::InvalidArgument(fmt::format("key of index {} is {} bytes; at most {}", i,
                                                 keys[i].size(), kMaxHeapKeyBytes));
    }
    std::array<std::byte, 2> b;
    Store16(b.data(), static_cast<uint16_t>(keys[i].size()));
    out->append(reinterpret_cast<const char*>(b.data()), 2);
    out->append(keys[i]);
  }
  out->append(row);
  if (out->size() > kMaxHeapRowSize) {
    return Status::InvalidArgument(
        fmt::format("row of {} bytes with its keys ({} stored); at most {}", row.size(),
                    out->size(), kMaxHeapRowSize));
  }
  return Status::OK();
}

Status DecodeRecord(std::string_view rec, size_t n, std::vector<std::string_view>* keys,
                    std::string_view* row) {
  keys->clear();
  size_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    if (off + 2 > rec.size()) return Status::Corruption("heap row too short for its keys");
    const size_t len = Load16(reinterpret_cast<const std::byte*>(rec.data() + off));
    off += 2;
    if (off + len > rec.size()) return Status::Corruption("heap row too short for its keys");
    keys->push_back(rec.substr(off, len));
    off += len;
  }
  *row = rec.substr(off);
  return Status::OK();
}

IndexRecord MakeIndexRecord(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r;
  r.key = std::string(key);
  if (idx.spec.unique) {
    r.value = EncodeRowPosition(pos);
  } else {
    AppendRowPositionSuffix(&r.key, pos);
  }
  return r;
}

Status InsertEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r = MakeIndexRecord(idx, key, pos);
  Status st = idx.tree->Insert(AsBytes(r.key), AsBytes(r.value));
  if (st.code() == Code::kDuplicateKey) {
    return Status::DuplicateKey(fmt::format("duplicate entry for key '{}'", idx.spec.name));
  }
  return st;
}

Status RemoveEntry(const HeapIndexState& idx, std::string_view key, RowPosition pos) {
  IndexRecord r = MakeIndexRecord(idx, key, pos);
  return idx.tree->Remove(AsBytes(r.key));
}

// kDuplicateKey if a unique index holds `key` for a row other than `self`.
Status CheckUnique(const HeapIndexState& idx, std::string_view key, RowPosition self) {
  std::string value;
  ASSIGN_OR_RETURN(bool found, idx.tree->Get(AsBytes(key), &value));
  if (!found) return Status::OK();
  ASSIGN_OR_RETURN(RowPosition pos, DecodeRowPosition(AsBytes(value)));
  if (pos == self) return Status::OK();
  return Status::DuplicateKey(fmt::format("duplicate entry for key '{}'", idx.spec.name));
}

bool ExcludesWriters(TableLockType t) {
  return t == TableLockType::kReadNoInsert || t == TableLockType::kWriteLowPriority ||
         t == TableLockType::kWrite || t == TableLockType::kWriteOnly;
}

// New, empty index trees for `specs`; on failure none are left.
Result<std::vector<HeapIndexState>> NewIndexTrees(BufferPool* pool,
                                                  const std::vector<HeapIndexSpec>& specs) {
  std::vector<HeapIndexState> out;
  for (const HeapIndexSpec& s : specs) {
    auto root = BTree::Create(pool, TreeOptions{});
    auto tree =
        root.ok() ? BTree::Open(pool, *root) : Result<std::unique_ptr<BTree>>(root.status());
    if (!tree.ok()) {
      for (HeapIndexState& i : out) (void)i.tree->Drop();
      return tree.status();
    }
    out.push_back(HeapIndexState{s, std::move(*tree)});
  }
  return out;
}

// Adds the entries of the row stored at `rec` (read from `heap` at `from`) as at `to`.
Status AddEntries(std::vector<HeapIndexState>* indexes, std::string_view rec, RowPosition to) {
  std::vector<std::string_view> keys;
  std::string_view row;
  RETURN_IF_ERROR(DecodeRecord(rec, indexes->size(), &keys, &row));
  for (size_t i = 0; i < indexes->size(); ++i) {
    RETURN_IF_ERROR(InsertEntry((*indexes)[i], keys[i], to));
  }
  return Status::OK();
}

}  // namespace minnow::heap_internal
