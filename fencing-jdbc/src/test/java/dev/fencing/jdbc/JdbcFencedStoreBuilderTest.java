package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link JdbcFencedStore.Builder} refuses what it cannot use, naming the value and what is allowed. */
class JdbcFencedStoreBuilderTest {

    private final PGSimpleDataSource unused = new PGSimpleDataSource();

    @Test
    void aDataSourceIsRequired() {
        assertThatThrownBy(() -> JdbcFencedStore.builder(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSource must not be null");
        assertThatThrownBy(() -> JdbcFencedStore.create(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSource must not be null");
    }

    @Test
    void theTableMustBeAPlainSqlName() {
        assertThatThrownBy(() -> JdbcFencedStore.builder(unused).table("fencing_store; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencing_store; DROP TABLE x'")
                .hasMessageContaining("unquoted SQL name, optionally schema-qualified");
        assertThatThrownBy(() -> JdbcFencedStore.builder(unused).table("\"Quoted\""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'\"Quoted\"'");
    }

    @Test
    void policyAndListenerMustBeGiven() {
        assertThatThrownBy(() -> JdbcFencedStore.builder(unused).policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> JdbcFencedStore.builder(unused).listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
    }
}
