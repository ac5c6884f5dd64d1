#include "sql_lite_front/session/session_transaction.h"

namespace minnow::sql {

TransactionOptions NextTransactionOptions(SessionState* s, bool autocommit) {
  TransactionOptions opts;
  opts.isolation = s->next_txn_isolation.value_or(s->vars.isolation());
  opts.lock_wait_timeout_ms = s->vars.innodb_lock_wait_timeout_s() * 1000u;
  opts.metadata_lock_wait_timeout_ms = uint64_t{s->vars.lock_wait_timeout_s()} * 1000;
  opts.autocommit = autocommit;
  opts.snapshot_isolation = s->vars.innodb_snapshot_isolation();
  s->next_txn_isolation.reset();
  return opts;
}

}  // namespace minnow::sql
