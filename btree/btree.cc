// BTree: creating and opening trees, point reads.

#include "btree/btree.h"

#include <fmt/format.h>

#include "btree/btree_internal.h"
#include "btree/cursor.h"

namespace minnow {

static_assert(kMaxKeySize == kMaxKeyLen, "btree.h and page_format.h agree on the key limit");
static_assert(kSysFieldsSize == kSysLen);

BTree::BTree(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BTree::~BTree() = default;

PageNo BTree::root() const { return impl_->root; }
const TreeOptions& BTree::options() const { return impl_->options; }

TreeStats BTree::stats() const {
  const Impl::Counters& c = impl_->counters;
  auto get = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return TreeStats{get(c.splits),      get(c.merges),         get(c.redistributions),
                   get(c.root_raises), get(c.root_collapses), get(c.pessimistic)};
}

Result<PageNo> BTree::Create(BufferPool* pool, const TreeOptions& options) {
  uint16_t flags = 0;
  if (options.sys_fields) flags |= kTreeFlagSysFields;
  if (options.compress_lz4) flags |= kTreeFlagCompressLz4;
  MiniTransaction mtr(pool);
  ASSIGN_OR_RETURN(MtrPage page,
                   mtr.Allocate(PageType::kBtreeLeaf, options.compress_lz4 ? kFlagCompressLz4 : 0));
  MtrEditor ed(page);
  InitPage(&ed, PageInit{.level = 0, .index_id = page.page_no(), .tree_flags = flags});
  PageNo root = page.page_no();
  mtr.Commit();
  return root;
}

Result<std::unique_ptr<BTree>> BTree::Open(BufferPool* pool, PageNo root,
                                           RecordMoveListener* listener) {
  if (root == kInvalidPageNo || root == 0) {
    return Status::InvalidArgument(fmt::format("page {} cannot be a B+tree root", root));
  }
  ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(root));
  PageView v(g.data());
  Status st = v.CheckHeader();
  if (!st.ok() || v.index_id() != root || v.prev() != kInvalidPageNo ||
      v.next() != kInvalidPageNo) {
    return Status::Corruption(fmt::format("{}: page {} is not a B+tree root{}{}", pool->file_name(),
                                          root, st.ok() ? "" : ": ", st.ok() ? "" : st.message()));
  }
  auto impl = std::make_unique<Impl>();
  impl->pool = pool;
  impl->root = root;
  impl->tree_flags = v.tree_flags();
  impl->options.sys_fields = (v.tree_flags() & kTreeFlagSysFields) != 0;
  impl->options.compress_lz4 = (v.tree_flags() & kTreeFlagCompressLz4) != 0;
  impl->listener = listener;
  impl->height_hint.store(v.level() + 1u);
  return std::unique_ptr<BTree>(new BTree(std::move(impl)));
}

Result<RecordData> BTree::Get(ConstBytes key) const { return impl_->Get(key); }

Result<bool> BTree::Get(ConstBytes key, std::string* value, bool* delete_marked) const {
  return ReadLatched(key, value, [delete_marked](const LatchedRead& r) {
    if (delete_marked != nullptr) *delete_marked = r.delete_marked;
    return Status::OK();
  });
}

Result<bool> BTree::ReadLatched(ConstBytes key, std::string* value,
                                const std::function<Status(const LatchedRead&)>& visit) const {
  if (key.size() > kMaxKeySize) {
    return Status::InvalidArgument(
        fmt::format("key of {} bytes is longer than {}", key.size(), kMaxKeySize));
  }
  ASSIGN_OR_RETURN(ReadPageGuard leaf, impl_->FindLeafRead(Impl::Target::kKey, key));
  PageView v(leaf.data());
  bool found = false;
  ASSIGN_OR_RETURN(size_t idx, v.LowerBound(key, &found));
  LatchedRead r;
  r.found = found;
  r.where = RecordLocation{leaf.page_no(), kSupremumHeapNo};
  RecordView rec;
  if (idx < v.n_slots() && !v.Record(idx, &rec)) {
    return Status::Corruption(fmt::format("page {}: slot {} out of range", leaf.page_no(), idx));
  }
  if (idx < v.n_slots()) r.where.heap_no = rec.heap_no;
  if (found) {
    r.sys = rec.sys;
    r.delete_marked = rec.delete_marked();
    if (value != nullptr) {
      value->clear();
      if (rec.overflow()) {
        RETURN_IF_ERROR(impl_->ReadChain(rec.value, value));
      } else {
        value->assign(reinterpret_cast<const char*>(rec.value.data()), rec.value.size());
      }
    }
  }
  RETURN_IF_ERROR(visit(r));
  return found;
}

Result<RecordData> BTree::Impl::Get(ConstBytes key) const {
  if (key.size() > kMaxKeySize) {
    return Status::InvalidArgument(
        fmt::format("key of {} bytes is longer than {}", key.size(), kMaxKeySize));
  }
  ASSIGN_OR_RETURN(ReadPageGuard leaf, FindLeafRead(Target::kKey, key));
  PageView v(leaf.data());
  bool found = false;
  ASSIGN_OR_RETURN(size_t idx, v.LowerBound(key, &found));
  if (!found) return Status::NotFound("key not found");
  RecordView rec;
  if (!v.Record(idx, &rec)) {
    return Status::Corruption(fmt::format("page {}: slot {} out of range", leaf.page_no(), idx));
  }
  RecordData out;
  RETURN_IF_ERROR(FillRecordData(rec, leaf.page_no(), &out));
  return out;
}

}  // namespace minnow
