// SqlEngine: the catalog, global variables and status, and the sessions list.
#include "sql_lite_front/sql_engine.h"

#include <algorithm>

#include "sql_lite_front/session/engine_state.h"
#include "sql_lite_front/session/session_state.h"

namespace minnow::sql {

SqlResult<std::unique_ptr<SqlEngine>> SqlEngine::Open(Database* db) {
  SQL_ASSIGN_OR_RETURN(std::unique_ptr<TableCatalog> catalog, TableCatalog::Open(db));
  auto state = std::make_unique<SqlEngineState>(db, std::move(catalog));
  return std::unique_ptr<SqlEngine>(new SqlEngine(std::move(state)));
}

SqlEngine::SqlEngine(std::unique_ptr<SqlEngineState> state) : state_(std::move(state)) {}
SqlEngine::~SqlEngine() = default;

Database* SqlEngine::db() const { return state_->db; }

std::unique_ptr<SqlSession> SqlEngine::NewSession() {
  return SessionWithId(state_->next_session_id.fetch_add(1));
}

std::unique_ptr<SqlSession> SqlEngine::RenewSession(std::unique_ptr<SqlSession> old) {
  const uint64_t id = old->id();
  old.reset();  // first: never two live sessions with one id
  return SessionWithId(id);
}

std::unique_ptr<SqlSession> SqlEngine::SessionWithId(uint64_t id) {
  Result<std::unique_ptr<Session>> kv = state_->db->NewSession();
  // NewSession fails only on a closed database; the session then answers every statement
  // with the engine's kClosed error (its kv_session is null, checked per statement).
  std::unique_ptr<Session> kv_session = kv.ok() ? std::move(kv).value() : nullptr;
  auto session = std::make_unique<SessionState>(state_.get(), id, std::move(kv_session));
  {
    LatchGuard g(state_->sessions_latch);
    state_->sessions.push_back(session.get());
  }
  return std::unique_ptr<SqlSession>(new SqlSession(std::move(session)));
}

}  // namespace minnow::sql
