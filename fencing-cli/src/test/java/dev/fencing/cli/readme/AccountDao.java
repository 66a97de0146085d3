package dev.fencing.cli.readme;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** The plain Jdbi DAO of docs/sql.md and docs/postgres.md: it knows nothing of tokens. */
interface AccountDao {

    @SqlQuery("SELECT balance FROM accounts WHERE id = :id")
    long balance(@Bind("id") int id);

    @SqlUpdate("UPDATE accounts SET balance = :balance WHERE id = :id")
    void setBalance(@Bind("id") int id, @Bind("balance") long balance);
}
