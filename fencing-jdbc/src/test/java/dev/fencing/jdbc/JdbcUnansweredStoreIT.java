package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link JdbcFencedStore} on PostgreSQL through a link that stops answering, with the driver's
 * timeouts of 2 s (the store's bound is the data source's): the toolkit's exceptions, never a bare
 * {@code SQLException}.
 */
class JdbcUnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static DataSource dataSource;

    @BeforeAll
    static void start() {
        PGSimpleDataSource direct = (PGSimpleDataSource) Databases.migrated(Databases.postgres());
        link = PartitionProxy.start(direct.getServerNames()[0], direct.getPortNumbers()[0]);
        PGSimpleDataSource viaLink = new PGSimpleDataSource();
        viaLink.setURL(direct.getURL());
        viaLink.setServerNames(new String[] {"127.0.0.1"});
        viaLink.setPortNumbers(new int[] {link.port()});
        viaLink.setUser(direct.getUser());
        viaLink.setPassword(direct.getPassword());
        viaLink.setConnectTimeout(2);
        viaLink.setLoginTimeout(2);
        viaLink.setSocketTimeout(2);
        dataSource = viaLink;
    }

    @AfterAll
    static void stop() {
        link.close();
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return JdbcFencedStore.builder(dataSource).listener(listener).build();
    }

    @Override
    protected void cutLink() {
        link.cut();
    }

    @Override
    protected void healLink() {
        link.heal();
    }
}
