package dev.fencing.jdbc;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** An existing, unfenced SqlObject DAO, as an application has it: no token anywhere. */
public interface AccountDao {

    @SqlUpdate("INSERT INTO unfenced (id, balance) VALUES (:id, :balance)")
    void open(@Bind("id") long id, @Bind("balance") long balance);

    @SqlQuery("SELECT balance FROM unfenced WHERE id = :id")
    long balance(@Bind("id") long id);

    @SqlUpdate("UPDATE unfenced SET balance = :balance WHERE id = :id")
    void setBalance(@Bind("id") long id, @Bind("balance") long balance);
}
