package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link JdbcFence.Builder} and {@link JdbiFence.Builder} refuse what they cannot use, naming the value. */
class FenceBuildersTest {

    private final PGSimpleDataSource unused = new PGSimpleDataSource();

    @Test
    void theConnectionsAreRequired() {
        assertThatThrownBy(() -> JdbcFence.builder(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSource must not be null");
        assertThatThrownBy(() -> JdbiFence.builder(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbi must not be null");
    }

    @Test
    void theTableMustBeAPlainSqlName() {
        assertThatThrownBy(() -> JdbcFence.builder(unused).table("fence rows"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fence rows'")
                .hasMessageContaining("unquoted SQL name, optionally schema-qualified");
        assertThatThrownBy(() -> JdbiFence.builder(Jdbi.create(unused)).table("a.b.c"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a.b.c'");
    }

    @Test
    void policyAndListenerMustBeGiven() {
        assertThatThrownBy(() -> JdbcFence.builder(unused).policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> JdbiFence.builder(Jdbi.create(unused)).listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
    }
}
