package dev.fencing.testkit.servers;

import javax.sql.DataSource;

/** A SQL database server for tests: PostgreSQL or MariaDB. */
public interface SqlTestServer extends TestServer {

    /** {@code "postgresql"} or {@code "mariadb"}. */
    String vendor();

    /** A data source for the server's default database. */
    DataSource dataSource();

    /**
     * Creates a new, empty database with a random name and returns a data source for it, so a
     * test class gets a schema no other test touches. Works on external servers whose user may
     * create databases.
     */
    DataSource freshDatabase();
}
