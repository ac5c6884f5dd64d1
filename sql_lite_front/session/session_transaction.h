#pragma once
// What a session's next transaction is begun with, for every place that begins one for it
// (SqlSession's statements and BEGIN, CREATE TABLE ... SELECT's own transaction).

#include "minnow/db.h"
#include "sql_lite_front/session/session_state.h"

namespace minnow::sql {

// The options of `s`'s next transaction: SET TRANSACTION's one-shot isolation level if one is
// pending (consumed here), else the session's; innodb_lock_wait_timeout, lock_wait_timeout
// (metadata locks) and innodb_snapshot_isolation from its variables; `autocommit` as given.
TransactionOptions NextTransactionOptions(SessionState* s, bool autocommit);

}  // namespace minnow::sql
