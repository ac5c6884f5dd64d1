#include <fmt/format.h>

#include <array>
#include <set>

#include "btree/cursor.h"
#include "buffer_pool/file_header.h"
#include "buffer_pool/mtr.h"
#include "engine/catalog_internal.h"

namespace minnow {
namespace {

constexpr std::string_view kNextIdKey{"\0next_keyspace_id", 17};
constexpr uint8_t kEntryVersion = 1;       // a table
constexpr uint8_t kOwnedEntryVersion = 2;  // a secondary index: + owner:u32
constexpr size_t kEntrySize = 10;
constexpr size_t kOwnedEntrySize = 14;
constexpr size_t kMaxNameLength = 64;

// The encoded entry: its first `size` bytes.
struct EncodedEntry {
  std::array<std::byte, kOwnedEntrySize> bytes{};
  size_t size = 0;
  ConstBytes view() const { return ConstBytes(bytes.data(), size); }
};

EncodedEntry EncodeEntry(const CatalogEntry& e) {
  EncodedEntry out;
  std::byte* v = out.bytes.data();
  v[0] = std::byte{e.owner_id == 0 ? kEntryVersion : kOwnedEntryVersion};
  Store32(&v[1], e.id);
  Store32(&v[5], e.root);
  v[9] = static_cast<std::byte>(e.options.compression);
  out.size = kEntrySize;
  if (e.owner_id != 0) {
    Store32(&v[10], e.owner_id);
    out.size = kOwnedEntrySize;
  }
  return out;
}

Result<CatalogEntry> DecodeEntry(std::string_view name, ConstBytes v) {
  const bool owned = v.size() == kOwnedEntrySize && v[0] == std::byte{kOwnedEntryVersion};
  if (!owned && (v.size() != kEntrySize || v[0] != std::byte{kEntryVersion})) {
    return Status::Corruption(fmt::format("catalog entry of keyspace '{}' is malformed", name));
  }
  CatalogEntry e;
  e.name = std::string(name);
  e.id = Load32(&v[1]);
  e.root = Load32(&v[5]);
  e.owner_id = owned ? Load32(&v[10]) : 0;
  const auto comp = std::to_integer<uint8_t>(v[9]);
  if (comp > static_cast<uint8_t>(Compression::kLz4) || e.id == 0 || e.root == kInvalidPageNo ||
      e.root == 0 || (owned && (e.owner_id == 0 || e.owner_id == e.id))) {
    return Status::Corruption(fmt::format("catalog entry of keyspace '{}' is invalid", name));
  }
  e.options.compression = static_cast<Compression>(comp);
  return e;
}

Status PersistNextId(BTree* tree, uint32_t next_id) {
  std::array<std::byte, 4> v;
  Store32(v.data(), next_id);
  return tree->Upsert(AsBytes(kNextIdKey), v);
}

}  // namespace

Status ValidateKeyspaceName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("keyspace name is empty");
  if (name.size() > kMaxNameLength) {
    return Status::InvalidArgument(fmt::format("keyspace name is {} characters long; at most {}",
                                               name.size(), kMaxNameLength));
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '$' || c == '.';
    if (!ok) {
      return Status::InvalidArgument(
          fmt::format("keyspace name '{}' has character {:#04x}; allowed are A-Z a-z 0-9 _ $ .",
                      name.size() <= kMaxNameLength ? name : name.substr(0, kMaxNameLength),
                      static_cast<unsigned char>(c)));
    }
  }
  return Status::OK();
}

Catalog::Catalog(std::unique_ptr<BTree> tree, uint32_t next_id)
    : tree_(std::move(tree)), next_id_(next_id) {}

Result<std::unique_ptr<Catalog>> Catalog::OpenOrCreate(BufferPool* pool) {
  PageNo root = pool->system_root(kCatalogRootSlot);
  if (root == kInvalidPageNo) {
    ASSIGN_OR_RETURN(root, BTree::Create(pool, TreeOptions{}));
    MiniTransaction mtr(pool);
    RETURN_IF_ERROR(pool->SetSystemRoot(&mtr, kCatalogRootSlot, root));
    mtr.Commit();
  }
  auto tree = BTree::Open(pool, root);
  if (!tree.ok()) {
    return Status(tree.status().code(), fmt::format("catalog tree (page {}) of {}: {}", root,
                                                    pool->file_name(), tree.status().message()));
  }
  if ((*tree)->options().sys_fields) {
    return Status::Corruption(
        fmt::format("page {} of {} is not the catalog tree", root, pool->file_name()));
  }
  uint32_t next_id = 1;
  auto meta = (*tree)->Get(AsBytes(kNextIdKey));
  if (meta.ok()) {
    if (meta->value.size() != 4) return Status::Corruption("catalog next-id record is malformed");
    next_id = Load32(reinterpret_cast<const std::byte*>(meta->value.data()));
    if (next_id == 0 || next_id > kMaxKeyspaceId) {
      return Status::Corruption(fmt::format("catalog next-id record is {}", next_id));
    }
  } else if (!meta.status().IsNotFound()) {
    return meta.status();
  } else {
    RETURN_IF_ERROR(PersistNextId(tree->get(), next_id));
  }
  return std::unique_ptr<Catalog>(new Catalog(std::move(*tree), next_id));
}

Result<std::vector<CatalogEntry>> Catalog::LoadAll() const {
  std::vector<CatalogEntry> out;
  std::set<uint32_t> ids;
  auto cur = tree_->NewCursor();
  RETURN_IF_ERROR(cur->SeekToFirst());
  for (; cur->Valid();) {
    std::string_view name = AsStringView(cur->key());
    if (name == kNextIdKey) {
      RETURN_IF_ERROR(cur->Next());
      continue;
    }
    if (!ValidateKeyspaceName(name).ok()) {
      return Status::Corruption(
          fmt::format("catalog holds an invalid keyspace name ({} bytes)", name.size()));
    }
    ASSIGN_OR_RETURN(ConstBytes value, cur->value());
    ASSIGN_OR_RETURN(CatalogEntry e, DecodeEntry(name, value));
    // An owner may be gone (dropped before its indexes), but its id was handed out.
    if (e.id >= next_id_ || !ids.insert(e.id).second || e.owner_id >= next_id_) {
      return Status::Corruption(fmt::format(
          "catalog: keyspace '{}' has id {} (next id {}, or a duplicate)", e.name, e.id, next_id_));
    }
    out.push_back(std::move(e));
    RETURN_IF_ERROR(cur->Next());
  }
  return out;
}

Status Catalog::Add(CatalogEntry* entry) {
  if (next_id_ >= kMaxKeyspaceId) return Status::NoSpace("keyspace ids are exhausted");
  auto existing = tree_->Get(AsBytes(entry->name));
  if (existing.ok()) {
    return Status::DuplicateKey(fmt::format("keyspace '{}' already exists", entry->name));
  }
  if (!existing.status().IsNotFound()) return existing.status();
  // The id is used up first: ids are never reused, even when the insert below fails.
  RETURN_IF_ERROR(PersistNextId(tree_.get(), next_id_ + 1));
  entry->id = next_id_++;
  const EncodedEntry value = EncodeEntry(*entry);
  return tree_->Insert(AsBytes(entry->name), value.view());
}

Status Catalog::Remove(std::string_view name) {
  Status st = tree_->Remove(AsBytes(name));
  if (st.IsNotFound()) return Status::NotFound(fmt::format("keyspace '{}' does not exist", name));
  return st;
}

KeyspaceCheck ToKeyspaceCheck(std::string name, uint32_t id, const CheckReport& r) {
  KeyspaceCheck k;
  k.name = std::move(name);
  k.id = id;
  k.records = r.records;
  k.delete_marked = r.delete_marked;
  k.leaf_pages = r.leaf_pages;
  k.node_pages = r.node_pages;
  k.overflow_pages = r.overflow_pages;
  k.height = r.height;
  k.avg_leaf_fill = r.avg_leaf_fill;
  return k;
}

}  // namespace minnow
